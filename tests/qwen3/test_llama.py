"""Llama 3.x through the engine's one description (examples/qwen3): no q/k norm, Llama 3's
scaled RoPE, tied or untied LM head, config.json read as transformers' LlamaConfig reads it.
Tiny seeded checkpoints against the NumPy reference (interpreter); where torch is installed,
against transformers in float32 (the reference's weights, and transformers' own random init
saved by save_pretrained); on the GPU machine, Llama-3.2-1B shapes against transformers."""

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
import prefill  # noqa: E402
import reference  # noqa: E402
import rope  # noqa: E402
import tiny  # noqa: E402
from config import ConfigError, load_config, parse_config  # noqa: E402
from generate import generate  # noqa: E402
from model import Engine, Sampling  # noqa: E402
from weights import load_weights  # noqa: E402

PROMPT = [3, 141, 59, 996, 7, 7, 512, 80, 1, 990, 400, 23]
NEW = 32
# (tied, shards, stored dtype, engine dtype, KV-cache tile, config changes): 12 + 32 positions
# span three 16-row cache tiles; 6 heads over 2 kv heads at hidden 96 give head_dim 16 and G = 3
CASES: dict[str, tuple[bool, int, str, str, int, dict[str, Any]]] = {
    "untied-f32": (False, 1, "F32", "float32", 16, {}),
    "tied-sharded-f32": (True, 2, "F32", "float32", 64, {}),
    "tied-bf16-as-bf16": (True, 1, "BF16", "bfloat16", 16,
                          {"hidden_size": 96, "num_attention_heads": 6, "vocab_size": 997}),
    # multi-head attention: a kv head per query head (G = 1)
    "mha-f32": (False, 1, "F32", "float32", 16,
                {"num_attention_heads": 4, "num_key_value_heads": 4}),
}


def _make(root: Path, tied: bool, shards: int = 1, stored: str = "F32",
          changes: dict[str, Any] | None = None,
          seed: int = 2) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    cfg = {**checkpoint.TINY_LLAMA, "tie_word_embeddings": tied, **(changes or {})}
    t = checkpoint.random_tensors(cfg, seed)
    if tied:  # a tied head reads the embedding rows, which then dominate the residual stream and
        # make the last token win again and again: smaller rows let the layers steer the walk
        t["model.embed_tokens.weight"] = t["model.embed_tokens.weight"] * 0.3
    return cfg, checkpoint.write(root, cfg, t, stored, shards)


def _engine(root: Path, dtype: str = "float32", cache_tile: int | None = 16) -> Engine:
    c = load_config(root)
    return Engine(c, load_weights(root, c), dtype, cache_tile)


@pytest.mark.parametrize("case", sorted(CASES))
def test_greedy_tokens_match_the_reference(tmp_path: Path, case: str) -> None:
    """32 greedy tokens after a batched prefill, each decode step a graph replay: the NumPy
    reference's (no q/k norm, llama3-scaled RoPE), tied and untied, f32 and bf16 matrices."""
    tied, shards, stored, dtype, cache_tile, changes = CASES[case]
    cfg, tensors = _make(tmp_path, tied, shards, stored, changes)
    if dtype == "bfloat16":  # the engine's matrices are bf16: the reference gets the same values
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    engine = _engine(tmp_path, dtype, cache_tile)
    assert engine.cfg.family == "llama" and engine.layers[0].q_norm is None
    got = generate(engine, PROMPT, NEW).tokens
    assert got == reference.greedy(cfg, tensors, PROMPT, NEW, kv_bf16=dtype == "bfloat16")
    assert len(set(got)) > 2


def test_prefill_steps_graph_and_eager_agree(tmp_path: Path) -> None:
    """The batched prefill leaves the step path's caches, logits and first token; batched and
    step prefills, graph and eager, greedy and sampled: the same tokens."""
    _make(tmp_path, False)
    m = _engine(tmp_path)
    n = len(PROMPT)
    m.reset(PROMPT, 4)
    m.run_eager(n)
    steps = {name: m.buf[name].numpy().copy() for name in ("k0", "v1", "history", "logits")}
    m.reset(PROMPT, 4)
    prefill.run(m, bm=16)
    for name, want in steps.items():
        np.testing.assert_allclose(m.buf[name].numpy(), want, rtol=2e-5,
                                   atol=1e-5 * max(1.0, float(np.abs(want).max())), err_msg=name)
    for sampling in (Sampling(), Sampling(0.9, 20, 0.9, seed=4)):
        want_tokens = generate(m, PROMPT, 8, sampling, step_prefill=True).tokens
        assert generate(m, PROMPT, 8, sampling).tokens == want_tokens
        assert generate(m, PROMPT, 8, sampling, eager=True).tokens == want_tokens


def test_scaled_rope_frequencies() -> None:
    """The engine's float32 llama3 frequencies are the reference's (float64, written from the
    definition) to float32 accuracy, and the tiny config puts them in all three bands."""
    c = parse_config(checkpoint.TINY_LLAMA)
    assert c.rope_scaling is not None and c.head_dim == 16
    got = rope.inv_freq(c)
    want = reference.frequencies(checkpoint.TINY_LLAMA, c.head_dim)
    np.testing.assert_allclose(got, want, rtol=2e-6)
    plain = reference.frequencies({"rope_theta": c.rope_theta}, c.head_dim)
    ratio = want / plain
    assert ratio[0] == 1 and ratio[-1] == pytest.approx(1 / 8)  # kept, divided by `factor`
    assert ((ratio > 1 / 8 + 1e-9) & (ratio < 1 - 1e-9)).any()  # and blended


def test_config_as_transformers_writes_it() -> None:
    """config.json from transformers' own LlamaConfig (v5 writes rope_parameters with the theta
    inside; v4 rope_scaling and rope_theta): the same engine config; head_dim from the heads."""
    transformers = pytest.importorskip("transformers")
    keys = {k: v for k, v in checkpoint.TINY_LLAMA.items()
            if k not in ("architectures", "model_type", "torch_dtype")}
    written = transformers.LlamaConfig(**keys).to_dict()
    c = parse_config(written)
    assert c == parse_config(checkpoint.TINY_LLAMA)
    assert (c.family, c.head_dim, c.rope_theta) == ("llama", 16, 500000.0)


def test_config_family_and_defaults() -> None:
    """The family from model_type, else architectures; LlamaConfig's defaults (head_dim =
    hidden / heads, no rope scaling); Qwen3's still apply to Qwen3."""
    raw = {k: v for k, v in checkpoint.TINY_LLAMA.items()
           if k not in ("model_type", "rope_scaling", "rms_norm_eps")}
    c = parse_config(raw)
    assert (c.family, c.rope_scaling, c.rms_norm_eps, c.head_dim) == ("llama", None, 1e-6, 16)
    assert not c.kind.qk_norm and parse_config(checkpoint.TINY).kind.qk_norm
    v5 = {**raw, "rope_parameters": {"rope_type": "llama3", "rope_theta": 1e5, "factor": 4,
                                     "low_freq_factor": 1, "high_freq_factor": 2}}
    del v5["rope_theta"]
    c = parse_config(v5)
    assert c.rope_theta == 1e5 and c.rope_scaling is not None
    assert c.rope_scaling.original_max_position_embeddings == 512  # max_position_embeddings


@pytest.mark.parametrize("change, words", [
    ({"model_type": "mistral"}, "'model_type' is 'mistral': this engine runs qwen3 "
                                "(Qwen3ForCausalLM), llama (LlamaForCausalLM)"),
    ({"model_type": None, "architectures": ["GPT2LMHeadModel"]},
     "'architectures' is ['GPT2LMHeadModel']"),
    ({"rope_scaling": {"rope_type": "yarn", "factor": 4}},
     "rope_type 'yarn' is not supported for llama (only 'default' and 'llama3')"),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1}},
     "needs 'high_freq_factor', a positive number"),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4,
                       "high_freq_factor": 1}}, "must be larger than low_freq_factor"),
    ({"mlp_bias": True}, "'mlp_bias' is true: MLP projections with biases are not supported"),
    ({"hidden_size": 96}, "'head_dim' = 24: this engine needs a power of two"),
])
def test_config_errors_say_what_is_wrong(change: dict[str, Any], words: str) -> None:
    raw = {k: v for k, v in {**checkpoint.TINY_LLAMA, **change}.items() if v is not None}
    with pytest.raises(ConfigError, match=r"^cfg\.json: ") as e:
        parse_config(raw, "cfg.json")
    assert words in str(e.value)


def test_a_qwen3_rope_scaling_is_still_refused() -> None:
    with pytest.raises(ConfigError, match="rope_type 'llama3' is not supported for qwen3"):
        parse_config({**checkpoint.TINY, "rope_scaling": {"rope_type": "llama3", "factor": 8,
                                                          "low_freq_factor": 1,
                                                          "high_freq_factor": 4}})


def _cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUTILE_BACKEND": os.environ.get("CUTILE_BACKEND", "interpreter")}
    return subprocess.run([sys.executable, str(ENGINE / "generate.py"), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_cli_runs_a_llama_checkpoint(tmp_path: Path) -> None:
    """tiny.py --family llama: the reply thread and tokenizer, streamed by generate.py."""
    done = subprocess.run([sys.executable, str(ENGINE / "tiny.py"), str(tmp_path), "--family",
                           "llama"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == "llama"
    done = _cli(["--model", str(tmp_path), "--prompt", "Hi", "--max-new-tokens", "40",
                 "--greedy", "--json"])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["text"] == tiny.REPLY and out["finish_reason"] == "eos"


def test_cli_names_an_unsupported_family(tmp_path: Path) -> None:
    cfg, _ = _make(tmp_path, True)
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "model_type": "gemma3",
                                                      "architectures": ["Gemma3ForCausalLM"]}))
    done = _cli(["--model", str(tmp_path), "--prompt-ids", "1,2", "--max-new-tokens", "1"])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and "'model_type' is 'gemma3': this engine runs " \
        "qwen3 (Qwen3ForCausalLM), llama (LlamaForCausalLM)" in done.stderr


@pytest.mark.parametrize("dtype", ["bfloat16"])
def test_every_llama_kernel_compiles_to_a_cubin(tmp_path: Path, toolchain: object,
                                                dtype: str) -> None:
    """Each launch of a Llama step (both picks) and prefill, at head_dim 64 (Llama-3.2-1B's)
    with a vocabulary that is not a power of two, compiled for sm_90 from metadata stand-ins."""
    _make(tmp_path, True, changes={"hidden_size": 256, "vocab_size": 997})
    m = _engine(tmp_path, dtype, None)
    assert m.cfg.head_dim == 64
    names: set[str] = set()
    for sampling in (Sampling(), Sampling(0.7, 40, 0.9)):
        m.reset(PROMPT, 4, sampling)
        plan = prefill.Plan(m, len(PROMPT))
        buf = {**m.buf, **plan.buffers()}
        names |= {ln.kernel.__name__
                  for ln, _ in checkpoint.compiled_links(buf, [*m.links, *plan.links()])}
    assert {"decode_attention_new_rope", "attention_merge_append_rope", "q_rope_rows",
            "kv_rope_fill_kvbf16"} <= names
    assert not {n for n in names if "norm_rope" in n or n.startswith("qk_")}
    assert not {"decode_attention_new", "attention_merge_append"} & names  # the q/k-norm forms


# -- against transformers (float32), wherever torch is installed ---------------------------------
def _hf_llama(cfg: dict[str, Any], tensors: dict[str, np.ndarray]) -> Any:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    keys = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type",
                                                       "torch_dtype")}
    hf = transformers.LlamaForCausalLM(transformers.LlamaConfig(**keys)).float().eval()
    state = dict(tensors)
    if cfg["tie_word_embeddings"]:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    hf.load_state_dict({n: torch.from_numpy(a.astype(np.float32)) for n, a in state.items()})
    return hf


def _hf_greedy(hf: Any, prompt: list[int], n: int) -> list[int]:
    torch = pytest.importorskip("torch")
    hf.generation_config.eos_token_id = None  # exactly n tokens, none suppressed or cut
    with torch.no_grad():
        out = hf.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt)),
                          max_new_tokens=n, do_sample=False)
    return [int(t) for t in out[0, len(prompt):]]


@pytest.mark.parametrize("tied", [False, True])
def test_greedy_tokens_match_transformers(tmp_path: Path, tied: bool) -> None:
    """The reference's weights in transformers' LlamaForCausalLM (float32, llama3 RoPE): the
    engine's 32 greedy tokens are transformers' generate(do_sample=False)."""
    cfg, tensors = _make(tmp_path, tied)
    hf = _hf_llama(cfg, tensors)
    assert generate(_engine(tmp_path), PROMPT, NEW).tokens == _hf_greedy(hf, PROMPT, NEW)


@pytest.mark.parametrize("tied", [False, True])
def test_transformers_own_checkpoint(tmp_path: Path, tied: bool) -> None:
    """A checkpoint as transformers writes it: tiny.write_hf (LlamaForCausalLM's own random
    init, save_pretrained's safetensors and config.json), then the same tokens."""
    pytest.importorskip("torch")
    hf = tiny.write_hf(tmp_path, {**checkpoint.TINY_LLAMA, "tie_word_embeddings": tied}, seed=3)
    assert load_config(tmp_path).tie_word_embeddings == tied
    assert generate(_engine(tmp_path), PROMPT, 16).tokens == _hf_greedy(hf, PROMPT, 16)


def test_transformers_own_checkpoint_as_bf16_shards(tmp_path: Path) -> None:
    """write_hf with dtype "bf16" and 2 shards (a str path): the returned model holds the
    stored bf16 weights, so its float32 tokens are the engine's from the checkpoint."""
    pytest.importorskip("torch")
    hf = tiny.write_hf(str(tmp_path), {**checkpoint.TINY_LLAMA, "tie_word_embeddings": True},
                       seed=3, dtype="bf16", shards=2)
    cfg = load_config(tmp_path)
    assert cfg.torch_dtype == "bfloat16" and cfg.tie_word_embeddings
    assert (tmp_path / "model-00002-of-00002.safetensors").exists()
    for w in hf.state_dict().values():  # each weight exactly a bf16 value
        assert (w == w.bfloat16().float()).all()
    assert generate(_engine(tmp_path), PROMPT, 16).tokens == _hf_greedy(hf, PROMPT, 16)


# -- on the GPU machine: Llama-3.2-1B's shapes ---------------------------------------------------
LLAMA_1B = {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
            "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
            "vocab_size": 128256, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
            "tie_word_embeddings": True, "max_position_embeddings": 131072,
            "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}


@pytest.mark.gpu
@pytest.mark.parametrize("layers", [4, 16])
def test_llama_1b_shapes_match_transformers(tmp_path: Path, layers: int) -> None:
    """Llama-3.2-1B's config.json shapes (4 of its 16 layers, and all 16) with seeded random
    weights: the engine's float32 greedy tokens are transformers' (float32), and the eager
    path's are the graph's."""
    cfg = {**checkpoint.TINY_LLAMA, **LLAMA_1B, "num_hidden_layers": layers}
    _, tensors = _make(tmp_path, True, changes=cfg, seed=7)
    want = _hf_greedy(_hf_llama(cfg, tensors), PROMPT, NEW)
    engine = _engine(tmp_path, "float32", None)
    assert generate(engine, PROMPT, NEW).tokens == want
    assert generate(engine, PROMPT, 12, eager=True).tokens == want[:12]
