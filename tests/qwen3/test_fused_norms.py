"""The decode step's norm-in-projection kernels (decode_kernels.py: norm_gemv, norm_gate_up,
gemv_residual) against NumPy on the interpreter, at widths that are not powers of two, and
lowered for sm_90 without register spills at Qwen3's widths; and the engine's fused step
(Engine(fuse_norms=True)) against the NumPy reference."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "qwen3"
sys.path[:0] = [str(ENGINE), str(Path(__file__).parent)]

import checkpoint  # noqa: E402
import decode_kernels as k  # noqa: E402
import test_llama  # noqa: E402
import test_qwen3 as tq  # noqa: E402
import tuning  # noqa: E402
from config import load_config  # noqa: E402
from generate import generate  # noqa: E402
from model import Engine, Sampling  # noqa: E402
from weights import load_weights  # noqa: E402

import cutile as ct  # noqa: E402
from cutile import bf16, f32  # noqa: E402

EPS = 1e-6


def _rms(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    t = t.astype(np.float64)
    return t / np.sqrt((t * t).mean(-1, keepdims=True) + EPS) * w


def _stored(a: np.ndarray, dtype: str) -> tuple[ct.Tensor, np.ndarray]:
    t = ct.from_numpy(a, dtype=bf16 if dtype == "bfloat16" else f32)
    return t, t.numpy().astype(np.float64)


def _inputs(h: int, s: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((s, h)).astype(np.float32),
            (1 + 0.1 * rng.standard_normal(h)).astype(np.float32),
            (rng.standard_normal((n, h)) / np.sqrt(h)).astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("h", "s", "n", "bk"), [(96, 2, 64, 32), (100, 1, 96, 64),
                                                 (256, 4, 32, 128)])
def test_norm_gemv_is_the_norm_then_the_product(dtype: str, h: int, s: int, n: int,
                                                bk: int) -> None:
    parts, nw, w = _inputs(h, s, n, h + s)
    wt, wv = _stored(w, dtype)
    kern = k.norm_gemv_bf16 if dtype == "bfloat16" else k.norm_gemv_f32
    hp = 1 << (h - 1).bit_length()
    y, *_ = kern(ct.zeros((1, n), f32).partition((1, 32)), ct.from_numpy(parts),
                 ct.from_numpy(nw), wt, EPS, H=h, HP=hp, S=s, BK=min(bk, hp), LAT=0).sync()
    want = _rms(parts.sum(0, keepdims=True), nw) @ wv.T
    np.testing.assert_allclose(y.unpartition().numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_norm_gate_up_is_the_norm_then_swiglu(dtype: str) -> None:
    h, s, n = 160, 2, 96
    parts, nw, wg = _inputs(h, s, n, 7)
    wu = _inputs(h, s, n, 8)[2]
    (gt, gv), (ut, uv) = _stored(wg, dtype), _stored(wu, dtype)
    kern = k.norm_gate_up_bf16 if dtype == "bfloat16" else k.norm_gate_up_f32
    y, *_ = kern(ct.zeros((1, n), f32).partition((1, 32)), ct.from_numpy(parts),
                 ct.from_numpy(nw), gt, ut, EPS, H=h, HP=256, S=s, BK=64, LAT=0).sync()
    x = _rms(parts.sum(0, keepdims=True), nw)
    g, u = x @ gv.T, x @ uv.T
    np.testing.assert_allclose(y.unpartition().numpy(), g / (1 + np.exp(-g)) * u, rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize(("splits", "rs"), [(1, 1), (2, 4), (4, 2)])
def test_gemv_residual_rows_sum_to_the_new_stream(splits: int, rs: int) -> None:
    """Split 0 adds the stream before it (RS rows), so the S rows sum to stream + x @ W^T:
    what the next norm_gemv reads as its parts."""
    rng = np.random.default_rng(splits * 10 + rs)
    n, kk = 96, 200
    x = rng.standard_normal((1, kk)).astype(np.float32)
    w = rng.standard_normal((n, kk)).astype(np.float32)
    res = rng.standard_normal((rs, n)).astype(np.float32)
    y, *_ = k.gemv_residual_f32(ct.zeros((splits, n), f32).partition((1, 32)),
                                ct.from_numpy(x), ct.from_numpy(w), ct.from_numpy(res),
                                S=splits, RS=rs, BK=64, LAT=0, ADD=True).sync()
    got = y.unpartition().numpy().sum(0)
    np.testing.assert_allclose(got, (x @ w.T)[0] + res.sum(0), rtol=1e-4, atol=1e-4)


def test_fused_forms_lower_for_sm_90_without_spills(toolchain: object) -> None:
    """At Qwen3-0.6B's, 1.7B's and 4B's widths, with tuning.json's tilings (norm_gate_up's
    own role), both fused products compile for sm_90 with no register spills."""
    t = tuning.load("NVIDIA H200")
    for h, inter, qkv, s in ((1024, 3072, 4096, 8), (2048, 6144, 4096, 4),
                             (2560, 9728, 6144, 4)):
        hp = 1 << (h - 1).bit_length()
        parts, nw = ct.meta((s, h), f32), ct.meta((h,), f32)
        g = t.gemv(qkv, h, "qkv")
        c = k.norm_gemv_bf16.with_hints(**g.hints).compile(
            ct.meta((1, qkv), f32).partition((1, g.bn)), parts, nw, ct.meta((qkv, h), bf16),
            EPS, H=h, HP=hp, S=s, BK=g.bk, LAT=g.latency)
        assert c.resources.spill_refills == 0, ("norm_gemv", h)
        g = t.gemv(inter, h, "norm_gate_up")
        c = k.norm_gate_up_bf16.compile(
            ct.meta((1, inter), f32).partition((1, g.bn)), parts, nw,
            ct.meta((inter, h), bf16), ct.meta((inter, h), bf16), EPS, H=h, HP=hp, S=s,
            BK=g.bk, LAT=g.latency)
        assert c.resources.spill_refills == 0, ("norm_gate_up", h)


# -- the engine with Engine(fuse_norms=True) -----------------------------------------------------
def _engine(root: Path, *args: Any, **kwargs: Any) -> Engine:
    c = load_config(root)
    return Engine(c, load_weights(root, c), *args, **kwargs)


def _reference_case(suite: Any, case: str, root: Path) -> tuple[Engine, list[int]]:
    """A fused engine on `suite`'s (test_qwen3's or test_llama's) reference checkpoint `case`,
    and the NumPy reference's greedy tokens for the suite's prompt."""
    tied, shards, stored, dtype, cache_tile, changes = suite.CASES[case]
    cfg, tensors = suite._make(root, tied, shards, stored, changes)
    if dtype == "bfloat16":  # the engine's matrices are bf16: the reference gets the same values
        tensors = {n: checkpoint.bf16_round(a) if a.ndim == 2 else a for n, a in tensors.items()}
    want = suite.reference.greedy(cfg, tensors, suite.PROMPT, suite.NEW,
                                  kv_bf16=dtype == "bfloat16")
    return _engine(root, dtype, cache_tile, fuse_norms=True), want


@pytest.mark.parametrize("case", ["untied-single-f32", "tied-sharded-bf16",
                                  "untied-sharded-bf16-as-bf16", "odd-heads-f32"])
def test_fused_step_gives_the_reference_tokens(tmp_path: Path, case: str) -> None:
    engine, want = _reference_case(tq, case, tmp_path / case)
    assert generate(engine, tq.PROMPT, tq.NEW).tokens == want
    names = [ln.kernel.__name__ for ln in engine.links if hasattr(ln, "kernel")]
    layers = engine.cfg.num_hidden_layers
    assert "add_rms_norm" not in names and "rms_norm" not in names
    assert names.count("sum_rms_norm") == 1 and len(names) == 6 * layers + 4


@pytest.mark.parametrize("case", ["untied-f32", "tied-bf16-as-bf16"])
def test_fused_llama_step_gives_the_reference_tokens(tmp_path: Path, case: str) -> None:
    """The Llama family (no q/k norm, llama3 RoPE) through the fused step, after a batched
    prefill: the NumPy reference's tokens."""
    engine, want = _reference_case(test_llama, case, tmp_path)
    assert generate(engine, test_llama.PROMPT, test_llama.NEW).tokens == want


@pytest.mark.parametrize("pdl", [None, "entry"])
def test_fused_step_graph_eager_and_sampled_agree(tmp_path: Path, pdl: str | None) -> None:
    tq._make(tmp_path, False, 1, "F32", {})
    plain = _engine(tmp_path, cache_tile=16)
    fused = _engine(tmp_path, cache_tile=16, fuse_norms=True, pdl=pdl)
    for sampling in (Sampling(), Sampling(0.8, 20, 0.9, seed=5)):
        graph = generate(fused, tq.PROMPT, 12, sampling).tokens
        assert generate(fused, tq.PROMPT, 12, sampling, eager=True).tokens == graph
        assert generate(plain, tq.PROMPT, 12, sampling).tokens == graph


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_kernel_of_a_fused_step_compiles_to_a_cubin(tmp_path: Path, toolchain: object,
                                                          dtype: str) -> None:
    """Each launch of a fused step (a hidden size that is no power of two), compiled for
    sm_90 on metadata stand-ins with the engine's own shapes and Consts."""
    tq._make(tmp_path, True, 1, "F32", {"hidden_size": 96, "vocab_size": 997})
    engine = _engine(tmp_path, dtype, fuse_norms=True)
    engine.reset([1, 2], 6)
    names = {ln.kernel.__name__ for ln, _ in checkpoint.compiled_links(engine.buf, engine.links)}
    suffix = "bf16" if dtype == "bfloat16" else "f32"
    assert {"sum_rms_norm", *(f"{n}_{suffix}" for n in ("norm_gemv", "norm_gate_up",
                                                         "gemv_residual"))} <= names


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["tiny-untied", "0.6B"])
def test_fused_step_on_the_gpu(tmp_path: Path, shape: str) -> None:
    """The fused step on CUDA: at the tiny shapes transformers' tokens (float32); at Qwen3-0.6B's
    (bf16) the graph gives the eager path's tokens, plain and with dependent launches."""
    if shape == "tiny-untied":
        torch = pytest.importorskip("torch")
        hf = tq._hf_model(tq._shape(shape), seed=7)
        hf.save_pretrained(tmp_path)
        hf.generation_config.eos_token_id = None
        with torch.no_grad():
            out = hf.generate(torch.tensor([tq.PROMPT]), max_new_tokens=tq.NEW, do_sample=False,
                              attention_mask=torch.ones(1, len(tq.PROMPT)))
        engine = _engine(tmp_path, fuse_norms=True)
        assert generate(engine, tq.PROMPT, tq.NEW).tokens == out[0, len(tq.PROMPT):].tolist()
        return
    cfg = tq._shape(shape)
    checkpoint.write(tmp_path, cfg, checkpoint.random_tensors(cfg, 7), "BF16", 1)
    for pdl in (None, "entry"):
        engine = _engine(tmp_path, "bfloat16", fuse_norms=True, pdl=pdl)
        graph = generate(engine, tq.PROMPT, 16).tokens
        assert generate(engine, tq.PROMPT, 16, eager=True).tokens == graph
