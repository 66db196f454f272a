"""The Qwen3 engine (examples/qwen3) against a NumPy reference on tiny seeded checkpoints, and
(GPU machine, with torch and transformers) against transformers' greedy generate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402
import model  # noqa: E402
import reference  # noqa: E402
from config import ConfigError, load_config, parse_config  # noqa: E402
from generate import generate  # noqa: E402
from kernels import argmax_row  # noqa: E402
from model import Qwen3  # noqa: E402
from weights import WeightsError, load_weights  # noqa: E402

import cutile as ct  # noqa: E402
from cutile.compiler import check_source  # noqa: E402

PROMPT = [3, 141, 59, 996]
NEW = 32
# (tie_word_embeddings, shards, stored dtype, engine dtype, KV-cache tile, config changes);
# a cache tile of 16 makes the 36 positions span three tiles of the append and attention loops
CASES = {
    "untied-single-f32": (False, 1, "F32", "float32", 64, {}),
    "tied-sharded-bf16": (True, 3, "BF16", "float32", 16,
                          {"hidden_size": 96, "intermediate_size": 160, "vocab_size": 997}),
    "tied-single-f32-as-bf16": (True, 1, "F32", "bfloat16", 64, {"rope_theta": 1e6}),
    "untied-sharded-bf16-as-bf16": (False, 2, "BF16", "bfloat16", 16, {}),
}


def _make(root: Path, tied: bool, shards: int, stored: str,
          changes: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    cfg = {**checkpoint.TINY, "tie_word_embeddings": tied, **changes}
    seed = sum(map(ord, root.name)) % 97
    tensors = checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, seed), stored, shards)
    return cfg, tensors


@pytest.mark.parametrize("case", sorted(CASES))
def test_greedy_tokens_match_reference(tmp_path: Path, case: str) -> None:
    tied, shards, stored, dtype, cache_tile, changes = CASES[case]
    cfg, tensors = _make(tmp_path / case, tied, shards, stored, changes)
    if dtype == "bfloat16":  # the engine's matrices are bf16: the reference gets the same values
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    c = load_config(tmp_path / case)
    engine = Qwen3(c, load_weights(tmp_path / case, c), dtype, cache_tile)
    got = generate(engine, PROMPT, NEW).tokens
    assert got == reference.greedy(cfg, tensors, PROMPT, NEW)
    assert len(set(got)) > 2  # the walk visits several tokens, not one repeated


def test_cli_prints_json(tmp_path: Path) -> None:
    _make(tmp_path, False, 1, "F32", {})
    env = {**os.environ, "CUTILE_BACKEND": os.environ.get("CUTILE_BACKEND", "interpreter")}
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model", str(tmp_path),
                           "--prompt-ids", "1,2,3", "--max-new-tokens", "3", "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"tokens", "prefill_s", "decode_tokens_per_s", "backend"}
    assert len(out["tokens"]) == 3 and out["backend"] == env["CUTILE_BACKEND"]
    assert out["prefill_s"] > 0 and out["decode_tokens_per_s"] > 0


def test_cli_reports_a_bad_token(tmp_path: Path) -> None:
    _make(tmp_path, True, 1, "F32", {})
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model", str(tmp_path),
                           "--prompt-ids", "1,1000", "--max-new-tokens", "1"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CUTILE_BACKEND": "interpreter"})
    assert done.returncode == 2
    assert "token id 1000 is outside the vocabulary (0..999)" in done.stderr


def test_a_position_past_the_cache_is_an_error(tmp_path: Path) -> None:
    _make(tmp_path, False, 1, "F32", {})
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), cache_tile=16)
    engine.reset(10)
    with pytest.raises(ValueError, match=r"position 16 is outside the KV cache \(0\.\.15\)"):
        engine.step(1, 16)


@pytest.mark.parametrize("vocab, hot", [(997, 996), (997, 500), (2048, 1025), (5, 4)])
def test_greedy_argmax_kernel(vocab: int, hot: int) -> None:
    """All logits negative (the zeros loaded past the vocabulary must not win), two equal
    maxima (the first wins, as np.argmax), and a vocabulary that is not a tile multiple."""
    x = -1.0 - np.random.default_rng(vocab).random((1, vocab), dtype=np.float32)
    x[0, hot] = x[0, vocab - 1] = -0.5
    bv = 4 if vocab == 5 else 256
    out, _ = argmax_row(ct.zeros((1,), ct.i32).partition((1,)), ct.from_numpy(x), V=vocab,
                        BV=bv).sync()
    assert int(out.unpartition().numpy()[0]) == hot == int(np.argmax(x))


def test_config_reads_hf_keys_and_defaults() -> None:
    c = parse_config({**checkpoint.TINY, "head_dim": None, "num_key_value_heads": None})
    assert (c.head_dim, c.num_key_value_heads, c.group) == (128, 4, 1)  # HF's defaults
    v5 = {k: v for k, v in checkpoint.TINY.items() if k not in ("rope_theta", "torch_dtype")}
    c = parse_config({**v5, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6},
                      "dtype": "bfloat16"})
    assert (c.rope_theta, c.torch_dtype, c.tie_word_embeddings) == (1e6, "bfloat16", False)


@pytest.mark.parametrize("change, words", [
    ({"hidden_size": None}, "'hidden_size' is missing"),
    ({"num_attention_heads": 0}, "'num_attention_heads' must be a positive integer, not 0"),
    ({"num_key_value_heads": 3}, "= 3 does not divide num_attention_heads = 4"),
    ({"head_dim": 48}, "'head_dim' = 48: this engine needs a power of two"),
    ({"rms_norm_eps": "x"}, "'rms_norm_eps' must be a positive number, not 'x'"),
    ({"tie_word_embeddings": 1}, "'tie_word_embeddings' must be true or false, not 1"),
    ({"torch_dtype": "int8"}, "'torch_dtype' is 'int8'; expected one of"),
    ({"rope_scaling": {"rope_type": "yarn"}}, "rope_type 'yarn' is not supported"),
    ({"attention_bias": True}, "'attention_bias' is true"),
])
def test_config_errors_say_what_is_wrong(change: dict[str, Any], words: str) -> None:
    raw = {k: v for k, v in {**checkpoint.TINY, **change}.items() if v is not None}
    with pytest.raises(ConfigError, match=r"cfg\.json: ") as e:
        parse_config(raw, "cfg.json")
    assert words in str(e.value)


def test_weights_errors_name_the_tensor(tmp_path: Path) -> None:
    cfg, _ = _make(tmp_path, False, 1, "F32", {})
    with pytest.raises(WeightsError, match=r"'model.embed_tokens.weight' has shape \(1000, 64\); "
                       r"config.json asks for \(1001, 64\)"):
        load_weights(tmp_path, parse_config({**cfg, "vocab_size": 1001}))
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(WeightsError, match=r"neither model\.safetensors nor"):
        load_weights(tmp_path, parse_config(cfg))


def test_engine_checks_clean() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        assert check_source(path.read_text(), str(path)) == [], path.name


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_kernel_of_a_step_compiles_to_a_cubin(tmp_path: Path, toolchain: object,
                                                    dtype: str, monkeypatch: Any) -> None:
    """One step with each launch replaced by `kernel.compile(arch="sm_90")` on metadata-only
    stand-ins: every kernel, with the engine's own shapes and Consts, lowers and assembles."""
    names: list[str] = []

    def compile_only(kernel: Any, out: Any, tile: tuple[int, ...], *args: Any,
                     **consts: Any) -> Any:
        outs = out if isinstance(out, tuple) else (out,)
        mut = (ct.meta(o.shape, o.dtype).partition(tile) for o in outs)
        assert kernel.compile(*mut, *args, arch="sm_90", **consts).cubin
        names.append(kernel.__name__)
        return out

    _make(tmp_path, True, 1, "F32", {"hidden_size": 96, "vocab_size": 997})
    monkeypatch.setattr(model, "launch_all", compile_only)
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), dtype)
    engine.reset(8)
    engine.next_token(engine.step(1, 0))
    suffix = "bf16" if dtype == "bfloat16" else "f32"
    assert set(names) == {"rms_norm", "qk_norm_rope", "kv_append", "decode_attention",
                          "argmax_row",
                                  *(f"{n}_{suffix}" for n in ("embed", "gemv", "gemv_residual",
                                                              "gate_up"))}


# -- on the GPU machine: the same weights in transformers --------------------------------------
def _hf_model(cfg: dict[str, Any], seed: int) -> Any:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    keys = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "head_dim", "vocab_size", "rms_norm_eps", "rope_theta",
            "tie_word_embeddings", "max_position_embeddings")
    hf = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(
        **{k: cfg[k] for k in keys})).float().eval()
    tensors = checkpoint.random_tensors(cfg, seed)
    if cfg["tie_word_embeddings"]:
        tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"]
    hf.load_state_dict({n: torch.from_numpy(a.astype(np.float32)) for n, a in tensors.items()})
    return hf


def _shape(name: str) -> dict[str, Any]:
    cfg = {**checkpoint.TINY, "tie_word_embeddings": name == "tiny-tied"}
    if name == "0.6B":  # Qwen3-0.6B's config.json, with seeded random weights
        cfg |= {"hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                "vocab_size": 151936, "rope_theta": 1e6, "tie_word_embeddings": True,
                "max_position_embeddings": 40960}
    return cfg


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "tiny-tied", "0.6B"])
def test_greedy_tokens_match_transformers(tmp_path: Path, shape: str) -> None:
    torch = pytest.importorskip("torch")
    hf = _hf_model(_shape(shape), seed=7)
    hf.save_pretrained(tmp_path)
    hf.generation_config.eos_token_id = None  # exactly NEW tokens, none suppressed or cut
    with torch.no_grad():
        out = hf.generate(torch.tensor([PROMPT]), attention_mask=torch.ones(1, len(PROMPT)),
                          max_new_tokens=NEW, do_sample=False)
    want = out[0, len(PROMPT):].tolist()
    c = load_config(tmp_path)
    assert generate(Qwen3(c, load_weights(tmp_path, c)), PROMPT, NEW).tokens == want


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "0.6B"])
def test_bf16_logits_near_transformers(tmp_path: Path, shape: str) -> None:
    """A BF16 checkpoint: transformers computes in bf16, the engine reads the same bf16
    weights and computes in float32, so the prompt's last logits agree to bf16 accuracy."""
    torch = pytest.importorskip("torch")
    hf = _hf_model(_shape(shape), seed=7).to(torch.bfloat16)
    hf.save_pretrained(tmp_path)
    with torch.no_grad():
        want = hf(torch.tensor([PROMPT])).logits[0, -1].float().numpy()
    c = load_config(tmp_path)
    engine = Qwen3(c, load_weights(tmp_path, c), "bfloat16")
    engine.reset(len(PROMPT))
    for pos, tok in enumerate(PROMPT):
        logits = engine.step(tok, pos)
    got = logits.numpy()[0]
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 0.05, f"max logit error {err:.4f} of the largest logit"
