"""The Qwen3 engine as a text generator (examples/qwen3/generate.py): the checkpoint's tokenizer
and chat template, streaming, the end of sequence, generation_config.json's defaults, the JSON
output, the errors; on the tiny checkpoint of examples/qwen3/tiny.py (interpreter), whose greedy
answer to any prompt is tiny.REPLY and then <|im_end|>. The chat template rendering is compared
with transformers' apply_chat_template where transformers is installed."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402
import footprint as fp  # noqa: E402
import generate as gen  # noqa: E402
import reference  # noqa: E402
import tiny  # noqa: E402
from chat_template import ChatTemplateError, load_template, render  # noqa: E402
from config import load_config  # noqa: E402
from generation_config import GenerationConfigError, load_defaults  # noqa: E402
from hf_tokenizer import Tokenizer, TokenizerError  # noqa: E402
from model import Qwen3  # noqa: E402
from weights import load_weights  # noqa: E402

import cutile as ct  # noqa: E402

ENV = {**os.environ, "CUTILE_BACKEND": os.environ.get("CUTILE_BACKEND", "interpreter")}


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tiny.Tiny]:
    root = tmp_path_factory.mktemp("tiny")
    return root, tiny.write_tiny(root)


@pytest.fixture(scope="module")
def engine(ckpt: tuple[Path, tiny.Tiny]) -> Qwen3:
    root = ckpt[0]
    cfg = load_config(root)
    return Qwen3(cfg, load_weights(root, cfg), cache_tile=16)


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = gen.main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


# -- the tiny checkpoint --------------------------------------------------------------------
def test_tiny_checkpoint_answers_its_reply_then_eos(ckpt: tuple[Path, tiny.Tiny]) -> None:
    """The thread through the weights, checked by the NumPy reference (not the engine): from
    unrelated prompts and from the middle of the reply, the greedy walk is the reply's rest
    and then <|im_end|>."""
    _, t = ckpt
    eos = t.ids["<|im_end|>"]
    for prompt in ([5, 6, 7], [t.ids["<|im_start|>"], 40, 198], [t.reply[3]]):
        start = t.reply.index(prompt[-1]) + 1 if prompt[-1] in t.reply else 0
        want = [*t.reply[start:], eos]
        assert reference.greedy(t.cfg, t.tensors, prompt, len(want)) == want
    tok = Tokenizer.load(ckpt[0])
    assert tok.decode(t.reply) == tiny.REPLY
    assert max(t.ids.values()) < t.cfg["vocab_size"]


def test_tiny_cli_writes_a_checkpoint_that_chats(tmp_path: Path) -> None:
    """The documented demo: tiny.py OUTDIR, then a chat through generate.py's command line."""
    done = subprocess.run([sys.executable, str(ENGINE / "tiny.py"), str(tmp_path / "m"),
                           "--dtype", "BF16", "--shards", "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names = {p.name for p in (tmp_path / "m").iterdir()}
    assert {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
            "model.safetensors.index.json"} <= names
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model",
                           str(tmp_path / "m"), "--chat", "--prompt", "Hi!", "--system",
                           "Be brief.", "--no-thinking", "--max-new-tokens", "40"],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == tiny.REPLY + "\n"
    assert "17 tokens, end of sequence" in done.stderr


def _tiny_cli(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ENGINE / "tiny.py"), str(out), *args],
                          capture_output=True, text=True, timeout=600)


def _shapes_file(tmp_path: Path, **shapes: Any) -> Path:
    path = tmp_path / "published.json"
    path.write_text(json.dumps(shapes))
    return path


@pytest.mark.parametrize(("shapes", "head_dim"), [
    ({"model_type": "qwen3", "hidden_size": 96, "intermediate_size": 160,
      "num_hidden_layers": 3, "num_attention_heads": 3, "num_key_value_heads": 1,
      "vocab_size": 4099, "tie_word_embeddings": True}, 128),  # Qwen3's default head_dim
    ({"model_type": "llama", "hidden_size": 96, "intermediate_size": 160,
      "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2,
      "vocab_size": 1500, "rope_theta": 500000.0}, 16),  # Llama's: hidden / heads
])
def test_tiny_cli_takes_a_published_models_shapes(tmp_path: Path, shapes: dict[str, Any],
                                                  head_dim: int) -> None:
    """tiny.py --shapes CONFIG: the thread at another model's sizes (widths that are no powers
    of two, a vocabulary far past the tokenizer's), its family from model_type, its head
    untied; generate.py streams the reply and stops at the end of sequence."""
    done = _tiny_cli(tmp_path / "m", "--shapes", str(_shapes_file(tmp_path, **shapes)))
    assert done.returncode == 0, done.stderr
    cfg = json.loads((tmp_path / "m" / "config.json").read_text())
    assert {k: cfg[k] for k in shapes if k != "tie_word_embeddings"} == \
        {k: v for k, v in shapes.items() if k != "tie_word_embeddings"}
    assert cfg["head_dim"] == head_dim and cfg["tie_word_embeddings"] is False
    assert "rope_scaling" not in cfg  # the tiny Llama's is not the published model's
    done = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model",
                           str(tmp_path / "m"), "--prompt", "Tell me about the sea",
                           "--greedy"], capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == tiny.REPLY + "\n" and "end of sequence" in done.stderr


@pytest.mark.parametrize(("shapes", "words"), [
    ({"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
      "vocab_size": 300}, "a vocabulary of 300 is smaller than the tiny tokenizer's"),
    ({"hidden_size": 64}, "a config.json with positive integer hidden_size, intermediate_size"),
    ({"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 1, "num_attention_heads": 0, "num_key_value_heads": 1,
      "vocab_size": 3000}, "positive integer"),
    ({"model_type": "gemma3", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
      "vocab_size": 3000}, "model_type 'gemma3' is not one of qwen3, llama"),
])
def test_tiny_cli_shapes_errors(tmp_path: Path, shapes: dict[str, Any], words: str) -> None:
    done = _tiny_cli(tmp_path / "m", "--shapes", str(_shapes_file(tmp_path, **shapes)))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert words in done.stderr and not (tmp_path / "m").exists()


def test_tiny_cli_shapes_file_unreadable(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(b"{\xff")
    done = _tiny_cli(tmp_path / "m", "--shapes", str(tmp_path / "bad.json"))
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--shapes" in done.stderr


# -- streaming and the end of sequence --------------------------------------------------------
def test_stream_hands_out_tokens_as_they_come_and_stops_at_eos(
        ckpt: tuple[Path, tiny.Tiny], engine: Qwen3) -> None:
    """Tokens reach on_tokens one step at a time; the incremental text never holds half a
    character (the em dash and the emoji are one byte-level token per byte) and adds up to
    the whole decode; generation ends at <|im_end|>, long before max_new_tokens."""
    root, t = ckpt
    tok = Tokenizer.load(root)
    eos = t.ids["<|im_end|>"]
    batches: list[list[int]] = []
    pieces: list[str] = []
    detok = tok.detokenizer()

    def on_tokens(ids: list[int]) -> None:
        batches.append(ids)
        pieces.append(detok.push(ids))

    res = gen.generate(engine, tok.encode("The weather"), 40, stop=(eos,), on_tokens=on_tokens)
    pieces.append(detok.flush())
    assert res.tokens == [*t.reply, eos] and res.finish_reason == "eos"
    assert batches == [[i] for i in res.tokens]
    assert "".join(pieces) == tok.decode(res.tokens) == tiny.REPLY
    assert not any("\ufffd" in p for p in pieces)
    assert "🙂" in pieces and "—" in pieces  # each printed whole, once its last byte came
    assert pieces.count("") >= 5  # the partial bytes printed nothing


@pytest.mark.parametrize("eager", [False, True])
def test_a_stop_inside_a_chunk_cuts_there(ckpt: tuple[Path, tiny.Tiny], engine: Qwen3,
                                          eager: bool) -> None:
    """Read every 5 steps, a stop id at the 7th token ends the result there; the tokens are
    those of a run without stops (graph and eager)."""
    _, t = ckpt
    full = gen.generate(engine, [9, 10, 11], 12, eager=eager)
    assert full.tokens == t.reply[:12] and full.finish_reason == "length"
    cut = gen.generate(engine, [9, 10, 11], 12, eager=eager, stop={t.reply[6]}, chunk=5)
    assert cut.tokens == t.reply[:7] and cut.finish_reason == "eos"
    first = gen.generate(engine, [9, 10, 11], 12, eager=eager, stop={t.reply[0]}, chunk=5)
    assert first.tokens == t.reply[:1] and first.decode_tokens_per_s is None


@pytest.mark.parametrize("flags", [[], ["--pdl"], ["--pdl", "entry"]])
def test_prompt_streams_text_to_stdout(ckpt: tuple[Path, tiny.Tiny], flags: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _main(["--model", str(ckpt[0]), "--prompt", "Tell me about tiles",
                          "--greedy", *flags], capsys)
    assert rc == 0, err
    assert out == tiny.REPLY + "\n"
    assert "end of sequence" in err and f"on {ct.backend_name()}" in err


def test_json_output_schema(ckpt: tuple[Path, tiny.Tiny],
                            capsys: pytest.CaptureFixture[str]) -> None:
    root, t = ckpt
    rc, out, err = _main(["--model", str(root), "--chat", "--prompt", "Hi", "--json"], capsys)
    assert rc == 0, err
    got = json.loads(out)
    assert set(got) == {"tokens", "prefill_s", "decode_tokens_per_s", "backend", "prompt_tokens",
                        "text", "finish_reason", "sampling"}
    assert got["tokens"] == [*t.reply, t.ids["<|im_end|>"]] and got["text"] == tiny.REPLY
    assert got["finish_reason"] == "eos" and got["backend"] == ct.backend_name()
    assert got["prefill_s"] > 0 and got["decode_tokens_per_s"] > 0
    tok = Tokenizer.load(root)
    assert got["prompt_tokens"] == tok.encode(
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    assert got["sampling"] == {"do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95,
                               "seed": 0}


def test_the_token_limit_ends_a_run_without_eos(ckpt: tuple[Path, tiny.Tiny],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root, t = ckpt
    rc, out, err = _main(["--model", str(root), "--prompt", "Hi", "--max-new-tokens", "4",
                          "--json"], capsys)
    assert rc == 0, err
    got = json.loads(out)
    assert got["tokens"] == t.reply[:4] and got["finish_reason"] == "length"


def test_a_chat_on_stdin_answers_each_turn(ckpt: tuple[Path, tiny.Tiny],
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """One user turn per line; the second turn's prompt holds the first answer as rendered by
    the template."""
    root, _ = ckpt
    monkeypatch.setattr(sys, "stdin", io.StringIO("Hi\n\nHow are you?\n"))
    rc, out, err = _main(["--model", str(root), "--chat", "--json", "--greedy"], capsys)
    assert rc == 0, err
    turns = [json.loads(line) for line in out.splitlines()]
    assert [t["text"] for t in turns] == [tiny.REPLY] * 2
    tok = Tokenizer.load(root)
    second = tok.decode(turns[1]["prompt_tokens"], skip_special_tokens=False)
    assert second == (f"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n{tiny.REPLY}"
                      "<|im_end|>\n<|im_start|>user\nHow are you?<|im_end|>\n"
                      "<|im_start|>assistant\n")


# -- generation_config.json -------------------------------------------------------------------
def _ns(**flags: Any) -> argparse.Namespace:
    base = {"greedy": False, "do_sample": False, "temperature": None, "top_k": None,
            "top_p": None, "seed": 3}
    return argparse.Namespace(**{**base, **flags})


def test_sampling_defaults_come_from_generation_config_and_flags_override(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path) -> None:
    d = load_defaults(ckpt[0])
    assert (d.do_sample, d.temperature, d.top_k, d.top_p) == (True, 0.6, 20, 0.95)
    s, shown = gen.sampling_from(_ns(), d)
    assert (s.temperature, s.top_k, s.top_p, s.seed) == (0.6, 20, 0.95, 3) and shown["do_sample"]
    s, _ = gen.sampling_from(_ns(top_k=5, top_p=0.5, temperature=1.5), d)
    assert (s.temperature, s.top_k, s.top_p) == (1.5, 5, 0.5)
    for flags in ({"greedy": True}, {"temperature": 0.0}):
        s, shown = gen.sampling_from(_ns(**flags), d)
        assert s.temperature == 0 and not shown["do_sample"]
    # no generation_config.json: transformers' defaults (greedy; top_k 50 once sampling)
    bare = _copy(ckpt[0], tmp_path / "bare")
    (bare / "generation_config.json").unlink()
    d = load_defaults(bare)
    assert gen.sampling_from(_ns(), d)[0].temperature == 0
    s, _ = gen.sampling_from(_ns(do_sample=True), d)
    assert (s.temperature, s.top_k, s.top_p) == (1.0, 50, 1.0)


def test_eos_ids_from_generation_config_else_config_json(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """generation_config.json's eos_token_id wins (here a token in the middle of the reply);
    without the file, config.json's (<|im_end|>) applies; its max_new_tokens is the default
    limit."""
    root, t = ckpt
    m = _copy(root, tmp_path / "m")
    gc = json.loads((m / "generation_config.json").read_text())
    (m / "generation_config.json").write_text(json.dumps(
        {**gc, "eos_token_id": t.reply[4], "do_sample": False, "max_new_tokens": 30}))
    rc, out, err = _main(["--model", str(m), "--prompt-ids", "5,6", "--json"], capsys)
    assert rc == 0, err
    assert json.loads(out)["tokens"] == t.reply[:5]
    (m / "generation_config.json").write_text(json.dumps({"max_new_tokens": 6}))
    rc, out, err = _main(["--model", str(m), "--prompt-ids", "5,6", "--json"], capsys)
    assert json.loads(out)["tokens"] == t.reply[:6]  # config.json's eos not reached in 6
    (m / "generation_config.json").unlink()
    rc, out, err = _main(["--model", str(m), "--prompt", "x", "--json"], capsys)
    got = json.loads(out)
    assert got["tokens"][-1] == t.ids["<|im_end|>"] == load_defaults(m).eos[0]
    assert got["finish_reason"] == "eos" and not got["sampling"]["do_sample"]


def test_unsupported_generation_settings_are_reported(
        ckpt: tuple[Path, tiny.Tiny], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = _copy(ckpt[0], tmp_path / "m")
    gc = json.loads((m / "generation_config.json").read_text())
    (m / "generation_config.json").write_text(json.dumps(
        {**gc, "repetition_penalty": 1.1, "num_beams": 1, "min_p": None}))
    rc, _, err = _main(["--model", str(m), "--prompt", "x", "--max-new-tokens", "2"], capsys)
    assert rc == 0
    assert "generation_config.json: repetition_penalty = 1.1 is not supported" in err
    assert "num_beams" not in err and "min_p" not in err


# -- the chat template ------------------------------------------------------------------------
CONVERSATIONS = {
    "user": [{"role": "user", "content": "Hi"}],
    "system-and-turns": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "<think>\nhmm\n</think>\n\nHello!"},
        {"role": "user", "content": "Again — ünïcode 🙂"}],
    "reasoning": [{"role": "user", "content": "q"},
                  {"role": "assistant", "content": "a", "reasoning_content": "because"}],
    "tools": [{"role": "user", "content": "call"},
              {"role": "assistant", "content": "",
               "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1, "s": "é"}}}]},
              {"role": "tool", "content": "42"}, {"role": "tool", "content": "43"}],
    "none-values": [{"role": "user", "content": "x", "name": None}],
}
KWARGS = [{}, {"enable_thinking": False}, {"enable_thinking": True}]


@pytest.fixture(scope="module")
def hf_tok(ckpt: tuple[Path, tiny.Tiny]) -> Any:
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")  # a local directory: nothing to fetch
        return AutoTokenizer.from_pretrained(str(ckpt[0]))


@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("add_generation_prompt", [True, False])
def test_qwen3_template_renders_as_transformers(ckpt: tuple[Path, tiny.Tiny], hf_tok: Any,
                                                conversation: str,
                                                add_generation_prompt: bool) -> None:
    """The Qwen3-format template of the tiny checkpoint, text and ids, against
    apply_chat_template (thinking on, off and unset)."""
    tok = Tokenizer.load(ckpt[0])
    template = load_template(ckpt[0], tok.config)
    messages = CONVERSATIONS[conversation]
    for kwargs in KWARGS:
        want = hf_tok.apply_chat_template(messages, tokenize=False,
                                                add_generation_prompt=add_generation_prompt,
                                                **kwargs)
        got = render(template, messages, add_generation_prompt, tok.special, **kwargs)
        assert got == want
        ids = hf_tok.apply_chat_template(messages, tokenize=True, return_dict=False,
                                               add_generation_prompt=add_generation_prompt,
                                               **kwargs)
        assert tok.encode(got, add_special_tokens=False) == list(ids)


# Templates for each part of the environment (with what it must render for MESSAGES).
MESSAGES = [{"role": "user", "content": "héllo <b>"},
            {"role": "assistant", "content": "ok", "reasoning": "r"},
            {"role": "user", "content": "bye"}]
FEATURES = {
    "generation-block": ("{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}"
                         "[{{ m.content }}]{% endgeneration %}{% else %}{{ m.content }}{% endif %}"
                         "\n{% endfor %}", "héllo <b>[ok]bye"),
    "loopcontrols": ("{% for m in messages %}{% if loop.index > 2 %}{% break %}{% endif %}"
                     "{% if m.role == 'user' %}{% continue %}{% endif %}{{ m.content }}"
                     "{% endfor %}", "ok"),
    "tojson": ("{{ messages[0] | tojson }}|{{ {'b': 1, 'a': [1]} | tojson(indent=1, "
               "sort_keys=true) }}|{{ {'a': 1} | tojson(separators=(',', ':')) }}",
               '{"role": "user", "content": "héllo <b>"}|{\n "a": [\n  1\n ],\n "b": 1\n}|'
               '{"a":1}'),
    "namespace": ("{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                  "{% endfor %}{{ ns.n }}", "3"),
    "dict": ("{{ dict(a=1) | tojson }}{{ dict.fromkeys(['x', 'y'], 0) | tojson }}",
             '{"a": 1}{"x": 0, "y": 0}'),
    "variables": ("{{ eos_token }}|{{ pad_token }}|{{ bos_token is defined }}|"
                  "{{ add_generation_prompt }}|{{ tools is none }}|{{ documents is none }}",
                  "<|im_end|>|<|endoftext|>|False|True|True|True"),
    "trim-and-lstrip": ("  {% if true %}\n    x\n  {% endif %}\n  y {{- 'z' }}\n", "    x\n  yz"),
    "reasoning-aliases": ("{% for m in messages %}{{ m.thinking }}/{{ m.reasoning_content }};"
                          "{% endfor %}", "/;r/r;/;"),
    "string-methods": ("{{ messages[0].content.upper() }}{{ messages[0].content.split('l')[-1] }}"
                       "{{ messages[::-1][0].content }}", "HÉLLO <B>o <b>bye"),
    "sandbox": ("{{ messages.__class__ }}{{ ''.__class__ }}{{ messages[0].__getitem__ }}", ""),
}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_template_environment(ckpt: tuple[Path, tiny.Tiny], feature: str) -> None:
    template, want = FEATURES[feature]
    tok = Tokenizer.load(ckpt[0])
    assert render(template, MESSAGES, True, tok.special) == want


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_template_environment_as_transformers(ckpt: tuple[Path, tiny.Tiny], hf_tok: Any,
                                              feature: str) -> None:
    template, _ = FEATURES[feature]
    tok = Tokenizer.load(ckpt[0])
    want = hf_tok.apply_chat_template(MESSAGES, chat_template=template, tokenize=False,
                                            add_generation_prompt=True)
    assert render(template, MESSAGES, True, tok.special) == want


@pytest.mark.parametrize(("template", "words"), [
    ("{{ raise_exception('System role not supported') }}",
     "failed on this conversation: System role not supported"),
    ("{% set ns = namespace(_x=1) %}", "cannot set '_x' on a namespace"),
    ("{% set ns = namespace() %}{% set ns._y = 2 %}", "cannot set '_y' on a namespace"),
    ("{% for %}", "not valid Jinja (line 1: Expected an expression"),
    ("{{ messages.append(1) }}", "failed on this conversation: .*unsafe"),  # immutable inputs
])
def test_template_errors_are_chat_template_errors(template: str, words: str) -> None:
    with pytest.raises(ChatTemplateError, match=words.replace("(", r"\(")):
        render(template, MESSAGES)


def test_template_sources(ckpt: tuple[Path, tiny.Tiny], tmp_path: Path) -> None:
    """chat_template.jinja before tokenizer_config.json's entry; a list of named templates
    gives 'default'; none at all is an error that says so."""
    m = _copy(ckpt[0], tmp_path / "m")
    config = json.loads((m / "tokenizer_config.json").read_text())
    assert load_template(m, config) == tiny.chat_template()
    (m / "chat_template.jinja").write_text("{{ 'file' }}")
    assert load_template(m, config) == "{{ 'file' }}"
    (m / "chat_template.jinja").unlink()
    named = [{"name": "tool_use", "template": "t"}, {"name": "default", "template": "d"}]
    assert load_template(m, {"chat_template": named}) == "d"
    with pytest.raises(ChatTemplateError, match=r"none named 'default'"):
        load_template(m, {"chat_template": named[:1]})
    with pytest.raises(ChatTemplateError, match="has no chat template"):
        load_template(m, {})


# -- errors -----------------------------------------------------------------------------------
def _broken(root: Path, dst: Path, what: str) -> Path:
    m = _copy(root, dst)
    if what == "no-tokenizer":
        (m / "tokenizer.json").unlink()
    elif what == "bad-tokenizer":
        (m / "tokenizer.json").write_text('{"version": "1.0", "model": 3}')
    elif what == "no-template":
        config = json.loads((m / "tokenizer_config.json").read_text())
        del config["chat_template"]
        (m / "tokenizer_config.json").write_text(json.dumps(config))
    elif what == "bad-generation-config":
        (m / "generation_config.json").write_text('{"do_sample": "yes"}')
    elif what == "no-weights":
        (m / "model.safetensors").unlink()
    elif what == "bad-weights":
        (m / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}garbage")
    return m


@pytest.mark.parametrize(("what", "flags", "words"), [
    ("missing-dir", ["--prompt", "x"], "does not exist (expected a checkpoint directory"),
    ("no-tokenizer", ["--prompt", "x"], "no tokenizer.json (the Hugging Face tokenizer file)"),
    ("bad-tokenizer", ["--prompt", "x"], "not a tokenizer the 'tokenizers' package can read"),
    ("no-template", ["--chat", "--prompt", "x"], "has no chat template"),
    ("bad-generation-config", ["--prompt", "x"], "'do_sample' must be true or false, not 'yes'"),
    ("no-weights", ["--prompt", "x"], "neither model.safetensors nor"),
    ("no-weights", ["--prompt-ids", "1,1000"], "token id 1000 is outside the vocabulary"),
    ("bad-weights", ["--prompt", "x"], "not a readable safetensors file"),
])
def test_cli_errors_name_the_problem(ckpt: tuple[Path, tiny.Tiny], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str], what: str,
                                     flags: list[str], words: str) -> None:
    m = tmp_path / "nothing" if what == "missing-dir" else _broken(ckpt[0], tmp_path / "m", what)
    rc, out, err = _main(["--model", str(m), *flags], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("error: ") and words in err and "Traceback" not in err


@pytest.mark.parametrize(("package", "flags"), [
    ("tokenizers", ["--prompt", "x"]), ("jinja2", ["--chat", "--prompt", "x"]),
    ("safetensors", ["--prompt-ids", "1,2"])])
def test_a_missing_extra_says_what_to_install(ckpt: tuple[Path, tiny.Tiny],
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, package: str,
                                              flags: list[str]) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # `import package` fails as if absent
    rc, _, err = _main(["--model", str(ckpt[0]), *flags, "--max-new-tokens", "2"], capsys)
    assert rc == 2
    assert f"needs the '{package}' package" in err and "pip install 'cutile[models]'" in err


def test_a_model_beyond_memory_is_ct412_before_reading_weights(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 700 GB config with no weights at all: the estimate stops it first."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "config.json").write_text(json.dumps(
        {**tiny.TINY, "hidden_size": 8192, "intermediate_size": 30000, "num_hidden_layers": 200,
         "vocab_size": 152000, "head_dim": 128, "num_attention_heads": 64,
         "num_key_value_heads": 8}))
    rc, _, err = _main(["--model", str(tmp_path), "--prompt-ids", "1,2"], capsys)
    assert rc == 2 and err.startswith("error: CT412 ") and "more than the" in err


def test_footprint_check_against_a_gpu() -> None:
    """The device check: free memory below the estimate is CT412 naming both numbers and the
    parts; above it, nothing."""
    cfg = load_config_dict({**tiny.TINY, "hidden_size": 2560, "intermediate_size": 9728,
                            "num_hidden_layers": 36, "num_attention_heads": 32,
                            "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
                            "tie_word_embeddings": True})
    est = fp.estimate(cfg, "bfloat16", "bfloat16", 1000, 3000)
    assert 7.5e9 < est.weights < 8.5e9  # 4.0B parameters at 2 bytes
    assert est.cache == 2 * 36 * (8 * 4096 * 128 * 2)  # 4000 positions -> 4096 rows
    gpu = (est.device + fp.MARGIN - 1, 80 << 30, "the GPU (cuda:0)")
    with pytest.raises(fp.DoesNotFit, match=r"^CT412 the model needs .* GiB of bfloat16 weights, "
                       r".* KV cache for 4000 positions.*free on the GPU \(cuda:0\)"):
        fp.check(est, "bfloat16", "bfloat16", gpu, None, False)
    fp.check(est, "bfloat16", "bfloat16", (est.device + fp.MARGIN, 1, "x"), None, False)


def load_config_dict(raw: dict[str, Any]) -> Any:
    from config import parse_config

    return parse_config(raw)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_footprint_weights_are_the_engines_device_tensors(ckpt: tuple[Path, tiny.Tiny],
                                                          dtype: str) -> None:
    """The estimate's weight bytes are those of the tensors the engine puts on the device
    (each rounded to the allocator's granule), and its cache those of the KV cache."""
    root = ckpt[0]
    cfg = load_config(root)
    model = Qwen3(cfg, load_weights(root, cfg), dtype)
    checkpoint.check_footprint(model, fp.estimate(cfg, dtype, dtype, 5, 300))


def test_progress_bar_on_request(ckpt: tuple[Path, tiny.Tiny],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--model", str(ckpt[0]), "--prompt-ids", "1", "--max-new-tokens", "1", "--json"]
    rc, _, err = _main([*args, "--progress"], capsys)
    assert rc == 0 and "reading weights " in err and "100%" in err and "2/2 layers" in err
    rc, _, err = _main(args, capsys)  # stderr is not a terminal here
    assert rc == 0 and "reading weights" not in err


def test_detokenizer_never_prints_half_a_character(ckpt: tuple[Path, tiny.Tiny]) -> None:
    tok = Tokenizer.load(ckpt[0])
    text = "Tiles: ünï — 東京 🙂🚀 done<|im_end|> after"
    ids = tok.encode(text, add_special_tokens=False)
    detok = tok.detokenizer()
    pieces = [detok.push([i]) for i in ids] + [detok.flush()]
    assert "".join(pieces) == tok.decode(ids) == text.replace("<|im_end|>", "")
    assert not any("\ufffd" in p for p in pieces)
    assert pieces.count("") > 8  # the multi-byte characters' partial tokens


def test_tokenizer_config_special_tokens(tmp_path: Path) -> None:
    from hf_tokenizer import special_tokens

    config = {"bos_token": None, "eos_token": {"content": "</s>", "special": True},
              "pad_token": "<pad>", "unk_token": 3}
    assert special_tokens(config) == {"eos_token": "</s>", "pad_token": "<pad>"}
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "tokenizer_config.json").write_text("{not json")
    with pytest.raises(TokenizerError):
        Tokenizer.load(tmp_path)


def test_generation_config_errors_name_the_key(tmp_path: Path) -> None:
    for raw, words in (({"top_p": 2}, "'top_p' must be a number in [0.0, 1.0], not 2"),
                       ({"eos_token_id": "x"}, "'eos_token_id' must be a token id"),
                       ({"max_new_tokens": 0}, "'max_new_tokens' must be a positive integer")):
        (tmp_path / "generation_config.json").write_text(json.dumps(raw))
        with pytest.raises(GenerationConfigError, match=words.replace("[", r"\[")):
            load_defaults(tmp_path)


def test_prompt_ids_mode_keeps_its_output(ckpt: tuple[Path, tiny.Tiny],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """--prompt-ids prints ids (and stops at eos too): no tokenizer is read."""
    root, t = ckpt
    rc, out, err = _main(["--model", str(root), "--prompt-ids", "3,4", "--greedy"], capsys)
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first == "tokens: " + " ".join(map(str, [*t.reply, t.ids["<|im_end|>"]]))



@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "flags"), [("float32", []), ("bfloat16", ["--eager"]),
                                              ("bfloat16", ["--step-prefill"])])
def test_text_generation_on_the_gpu(ckpt: tuple[Path, tiny.Tiny], dtype: str,
                                    flags: list[str]) -> None:
    """The CLI on CUDA: the chat's answer streams and stops at <|im_end|> (graph, eager, step
    prefill), and the free-memory query sees the GPU."""
    root, t = ckpt
    base = [sys.executable, str(ENGINE / "generate.py"), "--model", str(root), "--chat",
            "--prompt", "Hi", "--dtype", dtype, *flags]
    env = {**os.environ, "CUTILE_BACKEND": "cuda"}
    done = subprocess.run(base, capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout == tiny.REPLY + "\n" and "end of sequence" in done.stderr
    done = subprocess.run([*base, "--json"], capture_output=True, text=True, env=env,
                          timeout=180)
    got = json.loads(done.stdout)
    assert got["tokens"] == [*t.reply, t.ids["<|im_end|>"]] and got["backend"] == "cuda"
    device, host, interpreter = fp.free_memory()
    assert host is None or host > 0
    if ct.backend_name() == "cuda":  # (unless CUTILE_BACKEND makes this process interpret)
        assert device is not None and 0 < device[0] <= device[1] and not interpreter


@pytest.mark.gpu
@pytest.mark.slow
def test_text_generation_at_qwen3_0_6b_shapes_on_the_gpu(tmp_path: Path) -> None:
    """Issue 29's H200 check: Qwen3-0.6B's published shapes (28 layers, hidden 1024, vocabulary
    151,936), random bf16 weights with the reply thread, and the real-format tokenizer: the
    prompt and the chat stream the reply and stop at <|im_end|>."""
    from benchmarks import qwen3_decode  # (its folder on sys.path would shadow HF's `kernels`)

    shapes = {"model_type": "qwen3", **qwen3_decode.SHAPES["0.6B"], **qwen3_decode.COMMON}
    done = _tiny_cli(tmp_path / "m", "--shapes", str(_shapes_file(tmp_path, **shapes)),
                     "--dtype", "BF16", "--shards", "2")
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "CUTILE_BACKEND": "cuda"}
    for flags in (["--prompt", "Tell me about the weather today", "--greedy"],
                  ["--chat", "--prompt", "Hi"]):
        run = subprocess.run([sys.executable, str(ENGINE / "generate.py"), "--model",
                              str(tmp_path / "m"), *flags], capture_output=True, text=True,
                             env=env, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout == tiny.REPLY + "\n" and "end of sequence" in run.stderr


def test_the_models_extra_is_what_the_engine_imports_lazily() -> None:
    """pyproject's [models] extra lists the packages optional_deps names, and the engine's
    modules import without any of them (the light install), failing only when one is used."""
    import tomllib

    import optional_deps

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {r.split(">")[0].split("=")[0].split("<")[0] for r in extras["models"]}
    assert names == set(optional_deps.USES)
    assert "cutile[models]" in extras["dev"]
    block = "; ".join(f"sys.modules[{p!r}] = None" for p in optional_deps.USES)
    code = (f"import sys; {block}; sys.path.insert(0, {str(ENGINE)!r}); "
            "import generate, tiny, footprint; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=ENV, timeout=120)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
