"""examples/qwen3/tiny.py as a writer of checkpoints: its CLI's help and refusals, a rewrite of a
directory it wrote before, the names it takes for paths and dtypes, and --hf-init's flags."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402,F401  (registers tiny.py as `tiny`)
import tiny  # noqa: E402
from config import load_config  # noqa: E402
from weights import load_weights, read_safetensors  # noqa: E402

SHAPES = {"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
          "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
          "vocab_size": 1000}


def _cli(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ENGINE / "tiny.py"), str(out), *args],
                          capture_output=True, text=True, timeout=600)


def _shapes(tmp_path: Path, **changes: Any) -> Path:
    path = tmp_path / "published.json"
    path.write_text(json.dumps(SHAPES | changes))
    return path


def test_help_says_the_whole_first_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tiny.main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "written as Hugging Face writes them: for the tests and for demos." in help_text


@pytest.mark.parametrize(("changes", "words"), [
    ({"num_key_value_heads": 3}, "'num_key_value_heads' = 3 does not divide "
                                 "num_attention_heads = 4 (generate.py would refuse this"),
    ({"head_dim": 24}, "'head_dim' = 24: this engine needs a power of two"),
    ({"hidden_size": 16, "head_dim": 16}, "hidden_size 16 is too small for the reply thread: it "
                                          "needs at least 17"),
])
def test_a_config_the_engine_would_refuse_is_refused_before_writing(
        tmp_path: Path, changes: dict[str, Any], words: str) -> None:
    done = _cli(tmp_path / "m", "--shapes", str(_shapes(tmp_path, **changes)))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert words in done.stderr and not (tmp_path / "m").exists()


def test_the_smallest_hidden_size_of_the_message_works(tmp_path: Path) -> None:
    """hidden_size 17 (what the message above asks for) writes a checkpoint the engine reads."""
    t = tiny.write_tiny(tmp_path, shapes={**SHAPES, "hidden_size": 17, "num_attention_heads": 1,
                                          "num_key_value_heads": 1, "head_dim": 16})
    assert load_config(tmp_path).hidden_size == 17 == t.cfg["hidden_size"]


def test_a_rewrite_replaces_the_weight_files_and_keeps_the_rest(tmp_path: Path) -> None:
    """3 shards, then 2, then one file: only the last write's weights remain (an old index
    would make the engine read stale shards); files of the user's stay."""
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "model-extra.safetensors").write_bytes(b"not ours")
    tiny.write_tiny(tmp_path, shards=3)
    tiny.write_tiny(tmp_path, shards=2, family="llama")
    names = {p.name for p in tmp_path.iterdir()}
    assert {n for n in names if n.startswith("model")} == {
        "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
        "model.safetensors.index.json", "model-extra.safetensors"}
    tiny.write_tiny(tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert {n for n in names if n.startswith("model")} == {"model.safetensors",
                                                           "model-extra.safetensors"}
    assert (tmp_path / "notes.txt").read_text() == "mine"
    cfg = load_config(tmp_path)
    assert cfg.family == "qwen3" and load_weights(tmp_path, cfg).layers[0].q_norm is not None


def test_a_cli_rewrite_with_another_family_runs(tmp_path: Path) -> None:
    """The report's repro: shards of a Qwen3 checkpoint, then a Llama one in the same place."""
    assert _cli(tmp_path, "--shards", "3").returncode == 0
    assert _cli(tmp_path, "--family", "llama").returncode == 0
    cfg = load_config(tmp_path)
    assert cfg.family == "llama" and len(load_weights(tmp_path, cfg).layers) == 2


@pytest.mark.parametrize("dtype", ["BF16", "bf16", "bfloat16", "BFloat16"])
def test_write_tiny_takes_a_str_path_and_dtype_aliases(tmp_path: Path, dtype: str) -> None:
    t = tiny.write_tiny(str(tmp_path / "m"), dtype=dtype)
    assert t.cfg["torch_dtype"] == "bfloat16"
    header = (tmp_path / "m" / "model.safetensors").read_bytes()[8:4000]
    assert b'"dtype":"BF16"' in header.replace(b" ", b"")


@pytest.mark.parametrize("dtype", ["fp8", "F16", "float16", ""])
def test_an_unknown_dtype_is_refused(tmp_path: Path, dtype: str) -> None:
    with pytest.raises(ValueError, match=f"dtype {dtype!r}: expected F32 or BF16"):
        tiny.write_tiny(tmp_path / "a", dtype=dtype)
    with pytest.raises(ValueError, match="expected F32 or BF16"):
        tiny.write(tmp_path / "b", tiny.TINY, {}, dtype)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    done = _cli(tmp_path / "c", "--dtype", dtype or "x")
    assert done.returncode == 2 and "expected F32 or BF16" in done.stderr


def test_write_takes_a_str_path_and_refuses_bad_shards(tmp_path: Path) -> None:
    cfg = {**tiny.TINY, "num_hidden_layers": 1}
    stored = tiny.write(str(tmp_path), cfg, tiny.random_tensors(cfg, 1), "f32", 2)
    assert set(read_safetensors(tmp_path)) == set(stored)
    for shards in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="expected an integer >= 1"):
            tiny.write(tmp_path, cfg, {}, "F32", shards)  # type: ignore[arg-type]


def test_shapes_keep_tie_word_embeddings_for_hf_init_only(tmp_path: Path) -> None:
    shapes = {**SHAPES, "tie_word_embeddings": True}
    assert tiny._with_shapes("qwen3", shapes)["tie_word_embeddings"] is True
    assert tiny.write_tiny(tmp_path, shapes=shapes).cfg["tie_word_embeddings"] is False
    done = _cli(tmp_path / "m", "--shapes", str(_shapes(tmp_path, tie_word_embeddings=True)))
    assert done.returncode == 0 and "the head is written untied" in done.stderr


def test_hf_init_honours_dtype_shards_and_a_tied_head(tmp_path: Path) -> None:
    """--hf-init --dtype BF16 --shards 2 with a tied --shapes: BF16 shards and their index,
    config.json's dtype and tie; the engine reads it."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    done = _cli(tmp_path / "m", "--hf-init", "--dtype", "BF16", "--shards", "2", "--shapes",
                str(_shapes(tmp_path, model_type="llama", tie_word_embeddings=True)))
    assert done.returncode == 0, done.stderr
    m = tmp_path / "m"
    index = json.loads((m / "model.safetensors.index.json").read_text())
    assert sorted(set(index["weight_map"].values())) == [
        "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    assert "lm_head.weight" not in index["weight_map"]  # tied, as save_pretrained writes it
    assert not (m / "model.safetensors").exists()
    cfg = load_config(m)
    assert cfg.family == "llama" and cfg.tie_word_embeddings and cfg.torch_dtype == "bfloat16"
    assert b'"BF16"' in (m / "model-00001-of-00002.safetensors").read_bytes()[:4000]
    load_weights(m, cfg)


def test_hf_init_refuses_a_config_the_engine_would_refuse(tmp_path: Path) -> None:
    done = _cli(tmp_path / "m", "--hf-init", "--shapes",
                str(_shapes(tmp_path, num_key_value_heads=3)))
    assert done.returncode == 2 and "does not divide" in done.stderr
    assert not (tmp_path / "m").exists()
