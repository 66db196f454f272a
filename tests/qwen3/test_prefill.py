"""The batched prefill of examples/qwen3 (prefill.py): the KV-cache rows and the first token it
leaves equal the step-by-step prefill's, and the greedy tokens after it the NumPy reference's
(interpreter, tiny configs); on the GPU, the same comparison at a small config."""

from __future__ import annotations

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
from config import load_config  # noqa: E402
from generate import generate  # noqa: E402
from model import Qwen3, Sampling  # noqa: E402
from weights import load_weights  # noqa: E402

# 37 tokens: with 16-row tiles, three row tiles of the GEMMs and the attention (the last one
# partial), and the key tiles of the causal loop cross the cache tiles (16 rows too)
PROMPT = [(7 * i * i + 3 * i + 1) % 997 for i in range(37)]
CASES: dict[str, tuple[bool, str, str, dict[str, Any]]] = {  # tied, stored, engine dtype, changes
    "untied-f32": (False, "F32", "float32", {}),
    "tied-bf16-as-bf16": (True, "BF16", "bfloat16",
                          {"hidden_size": 96, "intermediate_size": 160, "vocab_size": 997}),
}


def _engine(root: Path, case: str) -> tuple[Qwen3, dict[str, Any], dict[str, np.ndarray]]:
    tied, stored, dtype, changes = CASES[case]
    cfg = {**checkpoint.TINY, "tie_word_embeddings": tied, **changes}
    tensors = checkpoint.write(root, cfg, checkpoint.random_tensors(cfg, 10), stored)
    if dtype == "bfloat16":  # the engine's matrices are bf16: the reference gets the same values
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    c = load_config(root)
    return Qwen3(c, load_weights(root, c), dtype, cache_tile=16), cfg, tensors


def _state(m: Qwen3, n: int) -> dict[str, np.ndarray]:
    """The caches, the history up to the first new token, pos and the last logits."""
    out = {name: m.buf[name].numpy().copy() for name in m.buf if name[0] in "kv"
           and name[1:].isdigit()}
    out["history"] = m.buf["history"].numpy()[:n + 1].copy()
    out["pos"] = m.buf["pos"].numpy().copy()
    out["logits"] = m.logits().copy()
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_batched_prefill_leaves_the_step_prefills_state(tmp_path: Path, case: str) -> None:
    """Rows 0..P-1 of every layer's K and V cache (and nothing past them), the first new token
    in history[P], pos = P and the last position's logits: as after P decode steps."""
    m, _, _ = _engine(tmp_path, case)
    n = len(PROMPT)
    m.reset(PROMPT, 4)
    m.run_eager(n)
    steps = _state(m, n)
    m.reset(PROMPT, 4)
    prefill.run(m, bm=16)
    batched = _state(m, n)
    assert set(batched) == set(steps) and len(batched) == 3 + 2 * m.cfg.num_hidden_layers
    for name, want in steps.items():
        if name in ("history", "pos"):
            np.testing.assert_array_equal(batched[name], want, err_msg=name)
        else:
            # f32 sums in another order (GEMM tiles vs GEMV splits): to 1e-5 of the largest value;
            # a bfloat16 cache may then round a value to the neighbouring bf16 (one step, 2^-7)
            rtol = 2.0 ** -7 if name[0] in "kv" and m.kv_dtype == "bfloat16" else 2e-5
            np.testing.assert_allclose(batched[name], want, rtol=rtol,
                                       atol=1e-5 * max(1.0, float(np.abs(want).max())),
                                       err_msg=name)
    assert int(batched["pos"][0]) == n and np.abs(batched["k0"][:, n:]).max() == 0
    assert np.abs(batched["v1"][:, :n]).min(axis=(0, 2)).max() > 0  # every row was written


@pytest.mark.parametrize("case", sorted(CASES))
def test_greedy_tokens_after_a_batched_prefill_match_the_reference(tmp_path: Path,
                                                                   case: str) -> None:
    """32 greedy tokens after the 37-token prompt's batched prefill (three row tiles), each
    decode step a graph replay: the NumPy reference's tokens."""
    m, cfg, tensors = _engine(tmp_path, case)
    m.reset(PROMPT, 32)
    prefill.run(m, bm=16)
    graph = m.capture()
    for _ in range(30):
        graph.replay()
    graph.sync()
    got = m.tokens(len(PROMPT), 32)
    assert got == reference.greedy(cfg, tensors, PROMPT, 32, kv_bf16=m.kv_dtype == "bfloat16")
    assert len(set(got)) > 2


def test_generate_batched_and_step_prefill_agree(tmp_path: Path) -> None:
    """generate's default (batched) prefill and --step-prefill give the same tokens, greedy and
    sampled (the first pick draws at position P - 1 either way), eager and graph; the chained
    and eager prefills leave bit-identical caches."""
    m, _, _ = _engine(tmp_path, "untied-f32")
    prompt = PROMPT[:6]
    for sampling in (Sampling(), Sampling(0.9, 20, 0.9, seed=4)):
        want = generate(m, prompt, 8, sampling, step_prefill=True).tokens
        assert generate(m, prompt, 8, sampling).tokens == want
        assert generate(m, prompt, 8, sampling, eager=True).tokens == want
    m.reset(prompt, 2)
    m.prefill(eager=True)
    eager = [m.buf[f"{kv}{i}"].numpy().copy() for i in range(2) for kv in "kv"]
    m.reset(prompt, 2)
    m.prefill()
    chained = [m.buf[f"{kv}{i}"].numpy() for i in range(2) for kv in "kv"]
    for a, b in zip(eager, chained, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not [name for name in m.buf if name.startswith("pf_")]  # its buffers are dropped


def test_one_token_prompt(tmp_path: Path) -> None:
    m, cfg, tensors = _engine(tmp_path, "untied-f32")
    assert generate(m, [5], 6).tokens == reference.greedy(cfg, tensors, [5], 6)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_prefill_kernel_compiles_to_a_cubin(tmp_path: Path, toolchain: object,
                                                  dtype: str) -> None:
    """Each launch of a prefill, as the engine makes it (shapes, tiles, Consts; a hidden size
    and a vocabulary that are not powers of two), compiled for sm_90 from metadata stand-ins."""
    cfg = {**checkpoint.TINY, "tie_word_embeddings": True, "hidden_size": 96,
           "vocab_size": 997}
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 1))
    c = load_config(tmp_path)
    m = Qwen3(c, load_weights(tmp_path, c), dtype)
    m.reset(PROMPT, 4)
    plan = prefill.Plan(m, len(PROMPT))
    buf = {**m.buf, **plan.buffers()}
    names = {ln.kernel.__name__ for ln, _ in checkpoint.compiled_links(buf, plan.links())}
    suffix = "bf16" if dtype == "bfloat16" else "f32"
    kv = "_kvbf16" if dtype == "bfloat16" else ""  # the cache follows the model's dtype
    assert names == {"rms_norm_rows", "rms_norm_row_at", "q_norm_rope_rows", "kv_fill" + kv,
                     "prefill_attention" + kv, "greedy_next",
                     *(f"{n}_{suffix}" for n in ("embed_rows", "gemm", "gemm_residual",
                                                 "gate_up_rows", "lm_head"))}


# -- on the GPU machine --------------------------------------------------------------------------
SMALL = {"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 3,
         "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64,
         "vocab_size": 4099, "tie_word_embeddings": True, "rope_theta": 1e6}


@pytest.mark.gpu
@pytest.mark.parametrize("stored, dtype", [("F32", "float32"), ("BF16", "bfloat16")])
def test_batched_prefill_on_the_gpu(tmp_path: Path, stored: str, dtype: str) -> None:
    """A 150-token prompt (three 64-row tiles) at a small config: the caches and last logits of
    the batched prefill are the step path's (the order of the sums differs, and the MMAs may
    round their inputs: to 1e-2 of the largest value), its first token and the 24 greedy tokens
    after it are the same."""
    cfg = {**checkpoint.TINY, **SMALL}
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 9), stored)
    c = load_config(tmp_path)
    m = Qwen3(c, load_weights(tmp_path, c), dtype)
    prompt = [(31 * i + 7) % 4099 for i in range(150)]
    n = len(prompt)
    m.reset(prompt, 24)
    m.run_eager(n)
    steps = _state(m, n)
    m.reset(prompt, 24)
    m.prefill()
    batched = _state(m, n)
    for name, want in steps.items():
        scale = max(float(np.abs(want).max()), 1.0)
        assert np.abs(batched[name] - want).max() <= 1e-2 * scale, name
    np.testing.assert_array_equal(batched["history"], steps["history"])
    want_tokens = generate(m, prompt, 24, step_prefill=True).tokens
    assert generate(m, prompt, 24).tokens == want_tokens
