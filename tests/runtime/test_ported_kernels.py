"""Ported kernels (ported_kernels.py) against NumPy: on the interpreter, and on CUDA under
`pytest -m gpu` (the `backend` fixture); the checker reports nothing in their file."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import ported_kernels as k
import pytest

import cutile as ct
from cutile import f16, f32, i32, u8
from cutile.checker import analyze_source

pytestmark = pytest.mark.usefixtures("backend")
RNG = np.random.default_rng(11)


def close(got: ct.HostTensor, want: np.ndarray, tol: float = 1e-5) -> None:
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_rotary_neox_in_place() -> None:
    t, h, d = 5, 4, 64
    q = RNG.standard_normal((t, h, d)).astype(np.float32)
    cos, sin = (RNG.standard_normal((16, d // 2)).astype(np.float32) for _ in range(2))
    pos = np.array([3, 0, 15, 7, 7], np.int32)
    (out, *_) = k.rope_neox(ct.from_numpy(q).partition((1, h, d)), ct.from_numpy(cos),
                            ct.from_numpy(sin), ct.from_numpy(pos)).sync()
    x1, x2, c, s = q[..., :d // 2], q[..., d // 2:], cos[pos][:, None], sin[pos][:, None]
    close(out.unpartition(), np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1))


def test_group_quant_to_fp8_bytes() -> None:
    x = RNG.standard_normal((3, 256)).astype(np.float32) * 10
    (q, sc, *_) = k.group_quant(ct.zeros((3, 256), u8).partition((1, 128)),
                                ct.zeros((3, 2), f32).partition((1, 1)), ct.from_numpy(x)).sync()
    scales = np.abs(x.reshape(3, 2, 128)).max(-1) / np.float32(448.0)
    close(sc.unpartition(), scales)
    back = _e4m3(q.unpartition().numpy()).reshape(3, 2, 128) * scales[..., None]
    np.testing.assert_allclose(back, x.reshape(3, 2, 128), rtol=0.07, atol=0.07 * scales.max())


def _e4m3(codes: np.ndarray) -> np.ndarray:
    """f8e4m3 bytes as float32 (bias 7, 3 mantissa bits, subnormals below exponent 1)."""
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp, man = (codes >> 3) & 0xF, (codes & 0x7).astype(np.float64)
    value = np.where(exp == 0, man / 8 * 2.0 ** -6, (1 + man / 8) * 2.0 ** (exp.astype(int) - 7))
    return (sign * value).astype(np.float32)


def test_add_rmsnorm_writes_both_in_place() -> None:
    x, r = (RNG.standard_normal((4, 100)).astype(np.float32) for _ in range(2))
    w = RNG.standard_normal(100).astype(np.float32)
    (xo, ro, *_) = k.add_rmsnorm(ct.from_numpy(x).partition((1, 100)),
                                 ct.from_numpy(r).partition((1, 100)), ct.from_numpy(w),
                                 1e-6).sync()
    h = x + r
    close(ro.unpartition(), h)
    close(xo.unpartition(), h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * w)


def test_searchsorted_with_a_while_loop() -> None:
    offs, vals = np.array([0, 3, 3, 10, 12], np.int32), np.array([0, 2, 3, 9, 11, 12, 40],
                                                                  np.int32)
    (out, *_) = k.searchsorted(ct.zeros((7,), i32).partition((1,)), ct.from_numpy(offs),
                               ct.from_numpy(vals)).sync()
    want = np.searchsorted(offs, vals, side="right") - 1
    assert out.unpartition().numpy().tolist() == want.tolist()


def test_selective_scan_stores_each_step() -> None:
    b, steps, d = 3, 6, 16
    x = RNG.standard_normal((b, steps, d)).astype(np.float32)
    a = RNG.uniform(0.5, 1, d).astype(np.float32)
    (y, *_) = k.scan_ssm(ct.zeros((b * steps, d), f32).partition((steps, d)), ct.from_numpy(x),
                         ct.from_numpy(a)).sync()
    h, want = np.zeros((b, d), np.float32), np.zeros_like(x)
    for t in range(steps):
        h = h * a + x[:, t]
        want[:, t] = h
    close(y.unpartition(), want.reshape(b * steps, d))


def test_embedding_backward_scatters_into_an_acc() -> None:
    g = RNG.standard_normal((40, 16)).astype(np.float32)
    ids = RNG.integers(0, 10, 40).astype(np.int32)
    (gw, *_) = k.embed_bwd(ct.zeros((10, 16), f32), ct.from_numpy(g), ct.from_numpy(ids),
                           BT=16, grid=(3, 1, 1)).sync()
    want = np.zeros((10, 16), np.float32)
    np.add.at(want, ids, g)
    close(gw, want, 1e-4)


def test_layernorm_dgamma_with_a_keyword_helper() -> None:
    x, dy = (RNG.standard_normal((48, 64)).astype(np.float32) for _ in range(2))
    (dg, *_) = k.ln_bwd_dgamma(ct.zeros((64,), f32), ct.zeros((48, 64), f32).partition((16, 64)),
                               ct.from_numpy(x), ct.from_numpy(dy)).sync()
    xh = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    close(dg, (dy * xh).sum(0), 1e-4)


def test_causal_softmax_with_a_row_dependent_loop() -> None:
    s = RNG.standard_normal((64, 64)).astype(np.float32)
    (out, *_) = k.causal_softmax_rows(ct.zeros((64, 64), f32).partition((1, 64)),
                                      ct.from_numpy(s), BN=16).sync()
    e = np.where(np.tril(np.ones((64, 64), bool)), np.exp(s - s.max(1, keepdims=True)), 0)
    close(out.unpartition(), e / e.sum(1, keepdims=True), 1e-5)


def test_int8_gemm_with_scales() -> None:
    a = RNG.integers(-5, 5, (64, 96)).astype(np.int8)
    b = RNG.integers(-5, 5, (96, 32)).astype(np.int8)
    sa, sb = RNG.uniform(0.1, 1, 64).astype(np.float32), RNG.uniform(0.1, 1, 32).astype(np.float32)
    (c, *_) = k.i8_gemm(ct.zeros((64, 32), f32).partition((32, 32)), ct.from_numpy(a),
                        ct.from_numpy(b), ct.from_numpy(sa), ct.from_numpy(sb), BK=32).sync()
    close(c.unpartition(), (a.astype(np.int32) @ b.astype(np.int32)) * sa[:, None] * sb)


def test_persistent_loop_with_continue() -> None:
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    (z, *_) = k.persistent_scale(ct.zeros((64, 64), f32).partition((16, 32), blocks=3),
                                 ct.from_numpy(x), 2).sync()
    want = x * 2
    want[32:48] = 0
    close(z.unpartition(), want)


def test_gelu_with_a_const_default() -> None:
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    xb = ct.from_numpy(x, dtype=ct.bf16)
    (g, *_) = k.gelu_rows(ct.zeros((4, 64), ct.bf16).partition((1, 64)), xb).sync()
    v = xb.numpy()  # bf16 reads back as float32
    want = 0.5 * v * (1 + np.tanh(k.SQRT_2_OVER_PI * (v + 0.044715 * v ** 3)))
    close(g.unpartition(), want, 2e-2)


def test_top_p_mask() -> None:
    p = RNG.dirichlet(np.ones(128), 3).astype(np.float32)
    (out, *_) = k.topp_mask(ct.zeros((3, 128), f32).partition((1, 128)), ct.from_numpy(p),
                            0.9).sync()
    c = np.cumsum(p, 1)
    close(out.unpartition(), np.where(c - p < 0.9, p, 0), 1e-5)


def test_causal_flash_attention_with_while_and_break() -> None:
    s, d = 100, 32
    q, kk, v = (RNG.standard_normal((s, d)).astype(np.float32) for _ in range(3))
    (o, *_) = k.flash_causal(ct.zeros((s, d), f32).partition((32, d)), ct.from_numpy(q),
                             ct.from_numpy(kk), ct.from_numpy(v), BN=16).sync()
    sc = np.where(np.tril(np.ones((s, s), bool)), q @ kk.T / math.sqrt(d), -np.inf)
    p = np.exp(sc - sc.max(1, keepdims=True))
    close(o.unpartition(), p / p.sum(1, keepdims=True) @ v, 2e-3)


def test_clamp_under_scalar_conditions() -> None:
    x = RNG.standard_normal(64).astype(np.float32) * 3
    (z, *_) = k.clipped(ct.zeros((64,), f32).partition((16,)), ct.from_numpy(x), -1.0, 1.0,
                        40).sync()
    want = x.copy()
    want[:48] = np.clip(x[:48], -1, 1)
    close(z.unpartition(), want)


def test_norm_in_a_three_axis_grid() -> None:
    x = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    w = RNG.standard_normal(8).astype(np.float32)
    (z, *_) = k.grid3(ct.zeros((2, 3, 8), f32).partition((1, 1, 8)), ct.from_numpy(x),
                      ct.from_numpy(w)).sync()
    at = (np.arange(2)[:, None] * 3 + np.arange(3)[None])[..., None]
    close(z.unpartition(), x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w + at)


def test_dropout_keeps_and_scales() -> None:
    x = RNG.standard_normal(512).astype(np.float32)
    (z, *_) = k.dropout(ct.zeros((512,), f32).partition((128,)), ct.from_numpy(x), 0.25, 7).sync()
    out = z.unpartition().numpy()
    kept = out != 0
    assert 0.6 < kept.mean() < 0.9
    np.testing.assert_allclose(out[kept], x[kept] / np.float32(0.75), rtol=1e-6)


def test_int4_dequant() -> None:
    q = RNG.integers(0, 256, (3, 32)).astype(np.uint8)
    s = RNG.uniform(0.5, 2, 3).astype(np.float16)
    (z, *_) = k.int4_dequant(ct.zeros((3, 64), f16).partition((1, 64)), ct.from_numpy(q),
                             ct.from_numpy(s)).sync()
    nibbles = np.stack([(q & 0xF).astype(np.int32) - 8, (q >> 4).astype(np.int32) - 8], -1)
    want = nibbles.reshape(3, 64).astype(np.float16) * s[:, None]
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


def test_cross_entropy_with_a_guard_clause() -> None:
    logits = RNG.standard_normal((5, 64)).astype(np.float32)
    labels = np.array([3, -100, 63, 0, -100], np.int64)
    (loss, *_) = k.xent(ct.zeros((5,), f32).partition((1,)), ct.from_numpy(logits),
                        ct.from_numpy(labels)).sync()
    m = logits.max(1)
    lse = np.log(np.exp(logits - m[:, None]).sum(1)) + m
    picked = logits[np.arange(5), np.clip(labels, 0, 63)]
    close(loss.unpartition(), np.where(labels == -100, 0, lse - picked))


def test_while_true_with_breaks() -> None:
    x = np.array([1, 2, 3, -4, 5, -6], np.float32)
    (z, *_) = k.first_negative(ct.zeros((1,), i32).partition((1,)), ct.from_numpy(x)).sync()
    assert z.unpartition().numpy().tolist() == [3]


def test_the_checker_finds_nothing() -> None:
    path = Path(k.__file__)
    assert [d.code for d in analyze_source(path.read_text(), str(path))] == []
