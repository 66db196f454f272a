"""The attention variants of benchmarks/kernels/attention.py (and the dK/dV and fused backward
forms of benchmarks/kernels/attention_bwd.py, and row 14's one-pass softmax) match the NumPy
reference on the interpreter (causal and not), as every variant the suite times must be
correct."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import cutile as ct
from benchmarks.suite.peers.cutile_native import load_kernel_module
from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("attention_lazy",)


@pytest.fixture
def interpreter() -> Iterator[None]:
    old = context.set_backend(InterpreterBackend())
    yield
    context.set_backend(old)


@pytest.mark.parametrize("seq", [128, 48], ids=["whole", "ragged"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("name", VARIANTS)
def test_attention_variant_matches_reference(interpreter: None, name: str, causal: bool,
                                             seq: int) -> None:
    kernel = getattr(load_kernel_module(ROOT, "benchmarks/kernels/attention.py"), name)
    reference = load_kernel_module(ROOT, "examples/attention.py").reference
    bh, d, bm, bn = 2, 32, 64, 32  # two diagonal blocks per query block when causal
    q, k, v = (ct.randn((bh, seq, d), ct.bf16, seed=s) for s in range(3))
    # a large-scale q makes row maxima jump between key blocks (attention_lazy's rescale path)
    q = ct.from_numpy(q.numpy().astype(np.float32) * 4.0, ct.bf16)
    f = [t.numpy().astype(np.float32) for t in (q, k, v)]
    out = ct.zeros((bh, seq, d), ct.bf16).partition((1, bm, d))
    out, *_ = kernel(out, q, k, v, 1 / math.sqrt(d), BN=bn, CAUSAL=causal).sync()
    got = out.unpartition().numpy().astype(np.float32)
    np.testing.assert_allclose(got, reference(*f, causal), atol=3e-2, rtol=3e-2)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(("bm", "bn"), [(64, 32), (32, 64)])
def test_attention_bwd_dkdv_t_matches_reference(interpreter: None, bm: int, bn: int,
                                                causal: bool) -> None:
    """The S^T form of the dK/dV kernel, in the example's chain in place of its own."""
    ex = load_kernel_module(ROOT, "examples/attention_backward.py")
    dkdv_t = load_kernel_module(ROOT, "benchmarks/kernels/attention_bwd.py").attention_bwd_dkdv_t
    ex.check(2, 128, 32, bm, bn, causal,
             kernels=(ex.attention_bwd_preprocess, dkdv_t, ex.attention_bwd_dq))


@pytest.mark.parametrize("by_element", [False, True], ids=["tile-add", "element-adds"])
@pytest.mark.parametrize(("bm", "bn", "causal", "seq"),
                         [(64, 32, True, 128), (32, 64, False, 128), (32, 32, True, 80)],
                         ids=["64x32-causal", "32x64-full", "32x32-causal-ragged"])
def test_attention_bwd_fused_matches_reference(interpreter: None, bm: int, bn: int,
                                               causal: bool, seq: int, by_element: bool) -> None:
    """The fused chain (Delta + zeroed dQ, dK/dV/dQ with dQ added by every key block, the dQ
    cast): several key blocks add into each query block's dQ, a ragged sequence included; dQ
    added a tile or an element at a time."""
    ex = load_kernel_module(ROOT, "examples/attention_backward.py")
    fused = load_kernel_module(ROOT, "benchmarks/kernels/attention_bwd.py")
    bh, d = 2, 32
    q, k, v, do = (ct.randn((bh, seq, d), ct.bf16, seed=s) for s in range(4))
    o, lse = ex.forward(q, k, v, bm=bm, bn=bn, causal=causal)
    flat = (bh, seq, d)
    out = [ct.zeros(flat, ct.bf16).partition(t) for t in ((1, bm, d), (1, bn, d), (1, bn, d))]
    scratch = (ct.zeros((bh, seq), ct.f32).partition((1, bm)),
               ct.full(flat, 7.0, ct.f32).partition((1, bm, d)))  # the chain zeroes dQ itself
    got = fused.attention_backward_fused(*out, *scratch, q, k, v, o, do, lse, 1 / math.sqrt(d),
                                         BM=bm, BN=bn, CAUSAL=causal,
                                         by_element=by_element).sync()
    f = [t.numpy().astype(np.float32) for t in (q, k, v, do)]
    for name, t, want in zip("QKV", got[:3], ex.reference(*f, causal), strict=True):
        g = t.unpartition().numpy().astype(np.float32)
        err = float(np.linalg.norm(g - want) / np.linalg.norm(want))
        assert err < 2e-2, f"d{name}: relative error {err:.3g}"


@pytest.mark.gpu
@pytest.mark.parametrize("by_element", [False, True], ids=["tile-add", "element-adds"])
@pytest.mark.parametrize(("bn", "hints"), [(64, {}), (128, {"worker_warps": 8})],
                         ids=["64x64", "64x128-w8"])
def test_attention_bwd_fused_matches_torch_on_gpu(bn: int, hints: dict[str, int],
                                                  by_element: bool) -> None:
    """(2, 4, 1024, 128) bf16 causal: the fused chain's dQ (atomic adds), dK, dV within 2e-2 of
    float32 gradients and at most twice as far from them as torch's bf16 backward (+ 2e-3)."""
    torch = pytest.importorskip("torch")
    from cutile.runtime.backends.cuda import CudaBackend

    ex = load_kernel_module(ROOT, "examples/attention_backward.py")
    fused = load_kernel_module(ROOT, "benchmarks/kernels/attention_bwd.py")
    old = context.set_backend(CudaBackend(0))
    try:
        b, h, s, d, bm = 2, 4, 1024, 128, 64
        gen = torch.Generator(device="cuda").manual_seed(5)
        q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16,
                                   generator=gen) for _ in range(4))
        wants = []
        for dt in (torch.float32, torch.bfloat16):
            leaves = [t.detach().to(dt).requires_grad_() for t in (q, k, v)]
            out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=True)
            wants.append(torch.autograd.grad(out, leaves, do.to(dt)))
        torch.cuda.synchronize()
        flat = [ct.from_dlpack(t.view(b * h, s, d)) for t in (q, k, v, do)]
        o, lse = ex.forward(*flat[:3], bm=128, bn=64, causal=True)
        shape = (b * h, s, d)
        out = [ct.zeros(shape, ct.bf16).partition(t) for t in ((1, bm, d), (1, bn, d), (1, bn, d))]
        scratch = (ct.zeros((b * h, s), ct.f32).partition((1, bm)),
                   ct.zeros(shape, ct.f32).partition((1, bm, d)))
        kernel = fused.attention_bwd_fused.with_hints(**hints) if hints else None
        got = fused.attention_backward_fused(*out, *scratch, *flat[:3], o, flat[3], lse,
                                             1 / math.sqrt(d), BM=bm, BN=bn, CAUSAL=True,
                                             kernel=kernel, by_element=by_element).sync()
        for name, t, want, peer in zip("QKV", got[:3], *wants, strict=True):
            mine = torch.from_dlpack(t.unpartition()).view(b, h, s, d).double()
            err = float((mine - want.double()).norm() / want.double().norm())
            theirs = float((peer.double() - want.double()).norm() / want.double().norm())
            assert err < 2e-2 and err <= 2 * theirs + 2e-3, (f"d{name}", err, theirs)
    finally:
        context.set_backend(old)


def _check_embedding_rows(vocab: int, dim: int, tokens: int, seed: int,
                          bts: tuple[int, ...]) -> None:
    """The whole-row form against the example's reference, for each rows-per-block in `bts`;
    ids outside the table (negative, one past the end) must read zero rows."""
    kernel = load_kernel_module(ROOT, "benchmarks/kernels/embedding.py").embedding_rows
    reference = load_kernel_module(ROOT, "examples/embedding.py").reference
    table = ct.randn((vocab, dim), ct.bf16, seed=0)
    ids = np.random.default_rng(seed).integers(0, vocab, tokens).astype(np.int32)
    ids[:4] = [0, vocab - 1, -1, vocab]
    for bt in bts:
        out = ct.zeros((tokens, dim), ct.bf16).partition((bt, dim))
        out, table, _ = kernel(out, table, ct.from_numpy(ids)).sync()
        np.testing.assert_array_equal(out.unpartition().numpy(), reference(table.numpy(), ids))


@pytest.mark.parametrize("bt", [1, 4])
def test_embedding_rows_matches_reference(interpreter: None, bt: int) -> None:
    """The whole-row embedding form (unchecked column axis): ids outside the table, negative
    and one past the end, still read zero rows; the token tail past the last id too."""
    _check_embedding_rows(300, 256, 30, 1, (bt,))


@pytest.mark.gpu
def test_embedding_rows_on_the_gpu() -> None:
    """The same on the GPU at the benchmark's width (16-byte row loads there), where a wrong
    unchecked axis would read outside the table (run it under compute-sanitizer too)."""
    if ct.backend_name() != "cuda":
        pytest.skip("no CUDA backend")
    _check_embedding_rows(1000, 4096, 258, 2, (1, 2, 4))


@pytest.mark.parametrize("width", [1000, 1024])
def test_softmax_row_once_matches_reference(interpreter: None, width: int) -> None:
    """Row 14's one-pass form: a row narrower than its tile (padded past the end) and one that
    fills it; each block writes its own row only."""
    mod = load_kernel_module(ROOT, "benchmarks/kernels/softmax_rows.py")
    x = (np.random.default_rng(width).standard_normal((3, width)) * 3).astype(np.float32)
    out = ct.full((3, width), 7.0, ct.f32).partition((1, width))
    out, _ = mod.softmax_row_once(out, ct.from_numpy(x), BN=1024).sync()
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out.unpartition().numpy(), e / e.sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(("kernel", "vocab", "bn"), [
    ("cross_entropy_once", 1000, 1024), ("cross_entropy_once", 1024, 1024),
    ("cross_entropy_walk", 1000, 256), ("cross_entropy_walk", 1024, 256)])
def test_cross_entropy_forms_match_reference(interpreter: None, kernel: str, vocab: int,
                                             bn: int) -> None:
    """Row 13's one-pass form and its walk with the target read as one element: loss and
    in-place gradient, the target in the row's last column too (next to the padding) and a row
    that fills its tile (its last tile, for the walk)."""
    ex = load_kernel_module(ROOT, "examples/cross_entropy.py")
    mod = load_kernel_module(ROOT, "benchmarks/kernels/cross_entropy.py")
    rng = np.random.default_rng(vocab)
    x = (rng.standard_normal((3, vocab)) * 3).astype(np.float32)
    t = np.array([vocab - 1, 0, vocab // 2], np.int32)
    logits = ct.from_numpy(x).partition((1, vocab))
    loss = ct.zeros((3, 1), ct.f32).partition((1, 1))
    logits, loss, _, _ = getattr(mod, kernel)(logits, loss, ct.from_numpy(t), 1 / 3,
                                              BN=bn).sync()
    want_loss, want_grad = ex.reference(x.astype(np.float64), t)
    np.testing.assert_allclose(loss.unpartition().numpy()[:, 0], want_loss, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(logits.unpartition().numpy(), want_grad, rtol=1e-4, atol=1e-8)
