"""What generate.py checks before it runs and how it words its output (examples/qwen3, on the
interpreter, tiny.py's checkpoint): the sampling flags the sampler cannot take, the model's
context (max_position_embeddings), checkpoint files that cannot be read, an empty prompt, the
--prompt-ids output, the warnings; and the CT412 hint when the KV cache is what does not fit."""

from __future__ import annotations

import io
import json
import pathlib
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402,F401  (registers tiny.py as `tiny`)
import footprint as fp  # noqa: E402
import generate as gen  # noqa: E402
import tiny  # noqa: E402
from config import ConfigError, parse_config  # noqa: E402
from generation_config import GenerationConfigError, load_defaults  # noqa: E402


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tiny.Tiny]:
    root = tmp_path_factory.mktemp("tiny")
    return root, tiny.write_tiny(root)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sharded")
    tiny.write_tiny(root, shards=2)
    return root


def _copy(src: Path, dst: Path, **config: Any) -> Path:
    """A copy of the checkpoint, with `config` changed in its config.json."""
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    if config:
        raw = json.loads((dst / "config.json").read_text())
        (dst / "config.json").write_text(json.dumps(raw | config))
    return dst


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = gen.main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The flags are refused as argparse refuses them: exit status 2, an `error:` line."""
    with pytest.raises(SystemExit) as e:
        gen.main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    return err


# -- sampling flags ---------------------------------------------------------------------------
@pytest.mark.parametrize(("flags", "words"), [
    (["--temperature", "nan"], "--temperature must be a finite number >= 0 (0: greedy), not nan"),
    (["--temperature", "inf"], "--temperature must be a finite number >= 0 (0: greedy), not inf"),
    (["--temperature", "-0.5"], "--temperature must be a finite number >= 0"),
    (["--temperature", "1e-45"], "--temperature 1e-45 is too small: sampling multiplies the "
                                 "logits by 1/temperature in float32"),
    (["--temperature", "2.9e-39"], "needs a temperature above 2.94e-39"),
    (["--top-p", "0"], "--top-p must be a number in (0, 1] (1: no top-p filter), not 0.0"),
    (["--top-p", "nan"], "--top-p must be a number in (0, 1]"),
    (["--top-p", "1.5"], "--top-p must be a number in (0, 1]"),
    (["--top-k", "-1"], "--top-k must be >= 0 (0: no top-k filter), not -1"),
    (["--seed", str(2**63)], "--seed must fit in a signed 64-bit integer (-9223372036854775808"
                             "..9223372036854775807), not 9223372036854775808"),
    (["--seed", str(-(2**63) - 1)], "--seed must fit in a signed 64-bit integer"),
])
def test_sampling_flags_the_sampler_cannot_take_are_refused(
        ckpt: tuple[Path, tiny.Tiny], capsys: pytest.CaptureFixture[str], flags: list[str],
        words: str) -> None:
    """Before anything is read: never a kernel-argument error from the engine's sampler."""
    err = _refused(["--model", str(ckpt[0]), "--prompt-ids", "5,17", *flags], capsys)
    assert "error: --" in err and words in err


@pytest.mark.parametrize("flags", [
    ["--temperature", "3e-39"], ["--temperature", "1e300"], ["--seed", str(2**63 - 1)],
    ["--seed", str(-(2**63))], ["--seed", "-1"], ["--top-p", "1e-30"]])
def test_sampling_flags_at_the_edges_of_the_range_run(ckpt: tuple[Path, tiny.Tiny],
                                                      capsys: pytest.CaptureFixture[str],
                                                      flags: list[str]) -> None:
    rc, out, err = _main(["--model", str(ckpt[0]), "--prompt-ids", "5,17", "--do-sample",
                          "--max-new-tokens", "2", "--json", *flags], capsys)
    assert rc == 0, err
    assert len(json.loads(out)["tokens"]) == 2


@pytest.mark.parametrize(("settings", "words"), [
    ({"temperature": 1e-45}, "generation_config.json's temperature 1e-45 is too small"),
    ({"temperature": float("nan")}, "'temperature' must be a number >= 0.0, not nan"),
    ({"top_p": float("inf")}, "'top_p' must be a number in [0.0, 1.0], not inf"),
])
def test_generation_config_sampling_the_sampler_cannot_take(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        settings: dict[str, Any], words: str) -> None:
    """The checkpoint's own settings are checked as the flags are (json writes NaN, Infinity)."""
    m = _copy(ckpt[0], tmp_path / "m")
    gc = json.loads((m / "generation_config.json").read_text())
    (m / "generation_config.json").write_text(json.dumps(gc | settings))
    rc, out, err = _main(["--model", str(m), "--prompt-ids", "5,17"], capsys)
    assert rc == 2 and out == "" and err.startswith("error: ") and words in err


def test_a_tiny_generation_config_temperature_is_fine_when_greedy(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path) -> None:
    m = _copy(ckpt[0], tmp_path / "m")
    (m / "generation_config.json").write_text(json.dumps({"temperature": 1e-45}))
    args = gen._parser().parse_args(["--model", str(m), "--prompt-ids", "1"])
    assert gen.sampling_from(args, load_defaults(m))[0] == gen.GREEDY  # do_sample unset
    with pytest.raises(GenerationConfigError, match="is too small"):
        gen.sampling_from(gen._parser().parse_args(["--model", "m", "--do-sample"]),
                          load_defaults(m))


# -- the model's context ----------------------------------------------------------------------
def test_the_context_comes_from_config_json_or_the_familys_default() -> None:
    base = {k: v for k, v in tiny.TINY.items() if k != "max_position_embeddings"}
    assert parse_config(base).max_position_embeddings == 32768  # Qwen3Config's default
    llama = {k: v for k, v in tiny.TINY_LLAMA.items() if k != "max_position_embeddings"}
    assert parse_config(llama).max_position_embeddings == 2048  # LlamaConfig's default
    assert parse_config({**base, "max_position_embeddings": None}).max_position_embeddings \
        == 32768
    assert parse_config(tiny.TINY).max_position_embeddings == 512
    for bad in (0, -1, "4096", 1.5, True):
        with pytest.raises(ConfigError, match="'max_position_embeddings' must be a positive "
                                              "integer"):
            parse_config({**base, "max_position_embeddings": bad})


def test_fit_context() -> None:
    assert gen.fit_context(10, 20, 30) == (20, None)
    new, warning = gen.fit_context(10, 21, 30)
    assert new == 20 and warning is not None
    assert "10 prompt tokens + 21 new tokens would pass the model's context of 30 tokens " \
        "(max_position_embeddings in config.json): generating at most 20 new tokens" in warning
    assert gen.fit_context(29, 5, 30)[0] == 1
    for prompt in (30, 31):
        with pytest.raises(ValueError, match=f"the prompt is {prompt} tokens and the model's "
                           "context of 30 tokens .* leaves no room for a new token"):
            gen.fit_context(prompt, 1, 30)


@pytest.mark.parametrize("prompt_len", [24, 600])
def test_a_prompt_past_the_context_is_an_error(ckpt: tuple[Path, tiny.Tiny], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               prompt_len: int) -> None:
    """It names both numbers, before any weight is read (the weights are gone here)."""
    m = _copy(ckpt[0], tmp_path / "m", max_position_embeddings=24)
    (m / "model.safetensors").unlink()
    ids = ",".join(str(5 + i % 300) for i in range(prompt_len))
    rc, out, err = _main(["--model", str(m), "--prompt-ids", ids, "--max-new-tokens", "4"],
                         capsys)
    assert rc == 2 and out == ""
    assert err == (f"error: the prompt is {prompt_len} tokens and the model's context of 24 "
                   "tokens (max_position_embeddings in config.json) leaves no room for a new "
                   "token\n")


@pytest.mark.parametrize("flags", [["--max-new-tokens", "3000000"], []])
def test_new_tokens_past_the_context_are_cut_there_with_a_warning(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        flags: list[str]) -> None:
    """As llama-cli stops at a full context: the flag's count, and the default's (256)."""
    m = _copy(ckpt[0], tmp_path / "m", max_position_embeddings=24)
    rc, out, err = _main(["--model", str(m), "--prompt-ids", ",".join(["5"] * 20), "--greedy",
                          "--json", *flags], capsys)
    assert rc == 0, err
    asked = flags[1] if flags else "256"
    assert f"warning: 20 prompt tokens + {asked} new tokens would pass the model's context of " \
        "24 tokens (max_position_embeddings in config.json): generating at most 4 new tokens" \
        in err
    got = json.loads(out)
    assert len(got["tokens"]) == 4 and got["finish_reason"] == "length"


def test_a_chat_that_outgrows_the_context_ends_with_an_error(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each turn prefills the conversation again: the first fits, the second is past 40."""
    m = _copy(ckpt[0], tmp_path / "m", max_position_embeddings=40)
    monkeypatch.setattr(sys, "stdin", io.StringIO("Hi\nAgain\n"))
    rc, out, err = _main(["--model", str(m), "--chat", "--json", "--greedy"], capsys)
    assert rc == 2 and len(out.splitlines()) == 1
    assert "error: the prompt is " in err and "context of 40 tokens" in err


# -- the CT412 hint -----------------------------------------------------------------------------
def test_ct412_says_when_the_kv_cache_is_what_does_not_fit() -> None:
    """A huge --max-new-tokens: the cache is the large part, so the hint is about positions
    (and the cache's dtype), not the weights' --dtype."""
    cfg = parse_config({**tiny.TINY, "max_position_embeddings": 2**31})
    est = fp.estimate(cfg, "float32", "float32", 2, 10**9)
    assert est.cache > est.weights
    want = (f"; most of it is the KV cache, {fp.gib(est.cache)} for 1000000002 positions "
            "(prompt + new tokens): try a smaller --max-new-tokens or prompt or --kv-dtype "
            "bfloat16")
    with pytest.raises(fp.DoesNotFit) as e:
        fp.check(est, "float32", "float32", None, 1 << 30, True)  # the interpreter's host
    assert str(e.value).endswith(want) and "--dtype bfloat16" not in str(e.value)
    with pytest.raises(fp.DoesNotFit) as e:  # a GPU, bf16 cache: no --kv-dtype to suggest
        fp.check(fp.estimate(cfg, "bfloat16", "bfloat16", 2, 10**9), "bfloat16", "bfloat16",
                 (1 << 30, 1 << 34, "the GPU (cuda:0)"), None, False)
    assert "most of it is the KV cache" in str(e.value) and "--kv-dtype" not in str(e.value)


def test_ct412_hint_for_the_weights() -> None:
    cfg = parse_config({**tiny.TINY, "hidden_size": 8192, "intermediate_size": 30000,
                        "num_hidden_layers": 100, "vocab_size": 152000})
    est = fp.estimate(cfg, "bfloat16", "bfloat16", 2, 10)
    gpu = (1 << 30, 1 << 34, "the GPU (cuda:0)")
    with pytest.raises(fp.DoesNotFit, match=r"in all\); try a smaller --max-new-tokens or "
                       r"prompt, or a smaller model$"):
        fp.check(est, "bfloat16", "bfloat16", gpu, None, False)
    with pytest.raises(fp.DoesNotFit, match=r"; try --dtype bfloat16, a smaller"):
        fp.check(fp.estimate(cfg, "float32", "float32", 2, 10), "float32", "float32", gpu,
                 None, False)
    with pytest.raises(fp.DoesNotFit, match=r"host memory available; try a smaller model$"):
        fp.check(est, "bfloat16", "bfloat16", None, 1 << 30, False)  # GPU run, host short


# -- checkpoint files that cannot be read ---------------------------------------------------------
@pytest.mark.parametrize(("name", "flags"), [
    ("config.json", []), ("tokenizer.json", []), ("tokenizer_config.json", []),
    ("generation_config.json", []), ("chat_template.jinja", ["--chat"]),
    ("model.safetensors", []), ("model.safetensors.index.json", ["sharded"]),
    ("model-00002-of-00002.safetensors", ["sharded"])])
def test_a_directory_in_place_of_a_checkpoint_file(
        ckpt: tuple[Path, tiny.Tiny], sharded: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], name: str, flags: list[str]) -> None:
    """Any file the engine reads: one `error:` line naming it, exit status 2."""
    m = _copy(sharded if "sharded" in flags else ckpt[0], tmp_path / "m")
    (m / name).unlink(missing_ok=True)
    (m / name).mkdir()
    chat = ["--chat"] if "--chat" in flags else []
    rc, out, err = _main(["--model", str(m), *chat, "--prompt", "Hi", "--max-new-tokens", "2"],
                         capsys)
    assert rc == 2 and out == ""
    assert err == f"error: {m / name}: cannot read it (Is a directory)\n"


@pytest.mark.parametrize("name", ["tokenizer_config.json", "config.json", "tokenizer.json",
                                  "model.safetensors"])
def test_a_checkpoint_file_without_permission(ckpt: tuple[Path, tiny.Tiny],
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch,
                                              name: str) -> None:
    """(Simulated: the tests may run as root, who reads any file.)"""
    read_text, open_ = pathlib.Path.read_text, pathlib.Path.open

    def denied(path: Path) -> None:
        if path.name == name:
            raise PermissionError(13, "Permission denied", str(path))

    def fake_read_text(self: Path, *a: Any, **k: Any) -> str:
        denied(self)
        return read_text(self, *a, **k)

    def fake_open(self: Path, *a: Any, **k: Any) -> Any:
        denied(self)
        return open_(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, "read_text", fake_read_text)
    monkeypatch.setattr(pathlib.Path, "open", fake_open)
    rc, _, err = _main(["--model", str(ckpt[0]), "--prompt", "Hi", "--max-new-tokens", "2"],
                       capsys)
    assert rc == 2
    assert err == f"error: {ckpt[0] / name}: cannot read it (Permission denied)\n"


# -- prompts, output and warnings -------------------------------------------------------------
def test_an_empty_prompt_says_so(ckpt: tuple[Path, tiny.Tiny],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _main(["--model", str(ckpt[0]), "--prompt", ""], capsys)
    assert rc == 2 and out == ""
    assert err == "error: --prompt is empty: the model needs at least one prompt token\n"


def test_prompt_ids_output_is_text_modes(ckpt: tuple[Path, tiny.Tiny],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The ids on stdout, the counts and timings on stderr (one token: "1 token"); --json's
    object is text mode's without the text."""
    root, t = ckpt
    rc, out, err = _main(["--model", str(root), "--prompt-ids", "3,4", "--greedy",
                          "--max-new-tokens", "1"], capsys)
    assert rc == 0, err
    assert out == f"tokens: {t.reply[0]}\n"
    assert err.startswith("[1 token, the token limit; prefill ") and "on interpreter]" in err
    rc, out, err = _main(["--model", str(root), "--prompt-ids", "3,4", "--greedy", "--json"],
                         capsys)
    got = json.loads(out)
    assert list(got) == ["tokens", "prefill_s", "decode_tokens_per_s", "backend",
                         "prompt_tokens", "finish_reason", "sampling"]
    assert got["tokens"] == [*t.reply, t.ids["<|im_end|>"]] and got["prompt_tokens"] == [3, 4]
    assert got["finish_reason"] == "eos" and got["sampling"]["do_sample"] is False
    rc, out, err = _main(["--model", str(root), "--prompt", "Hi", "--greedy",
                          "--max-new-tokens", "2"], capsys)
    assert err.startswith("[2 tokens, the token limit; ")


def test_a_checkpoint_without_eos_ids_is_warned_about(ckpt: tuple[Path, tiny.Tiny],
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    warning = ("warning: the checkpoint names no end-of-sequence id (eos_token_id in "
               "generation_config.json or config.json): each answer runs to --max-new-tokens")
    args = ["--prompt-ids", "3", "--max-new-tokens", "2", "--json"]
    rc, _, err = _main(["--model", str(ckpt[0]), *args], capsys)
    assert rc == 0 and warning not in err
    m = _copy(ckpt[0], tmp_path / "m")
    raw = json.loads((m / "config.json").read_text())
    del raw["eos_token_id"]
    (m / "config.json").write_text(json.dumps(raw))
    (m / "generation_config.json").unlink()
    rc, _, err = _main(["--model", str(m), *args], capsys)
    assert rc == 0 and warning in err


def test_crlf_chat_lines_on_stdin(ckpt: tuple[Path, tiny.Tiny], capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A Windows line end is a line end: the user turn holds no '\\r'."""
    prompts = []
    for stdin in ("Hi\nYo\n", "Hi\r\nYo\r\n"):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        rc, out, err = _main(["--model", str(ckpt[0]), "--chat", "--json", "--greedy",
                              "--max-new-tokens", "1"], capsys)
        assert rc == 0, err
        prompts.append([json.loads(line)["prompt_tokens"] for line in out.splitlines()])
    assert prompts[0] == prompts[1] and len(prompts[0]) == 2


def test_host_out_of_memory_names_the_kv_cache(ckpt: tuple[Path, tiny.Tiny],
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A MemoryError past the estimate (the interpreter's cache is on the host too)."""
    def no_memory(*args: Any, **kwargs: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(gen, "load_weights", no_memory)
    rc, _, err = _main(["--model", str(ckpt[0]), "--prompt-ids", "3"], capsys)
    assert rc == 1 and err.startswith("error: CT412 the host ran out of memory")
    assert "on the interpreter the model and its KV cache live there too" in err
