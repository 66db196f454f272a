"""Programs people write with round, bitcast, clamp and whole-tile reductions: per-token int8
quantization, an fp8 quantizer that stores bytes, sparsemax (the sort-free form) and a
dequantizing dot product. The interpreter against NumPy, lowering and assembly, and (with -m
gpu) CUDA against the interpreter bit for bit where every step is IEEE (division, round,
conversions)."""

from typing import Any

import numpy as np
import pytest
from opcheck import assembled, host, on_interpreter

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f32, i8, u8
from cutile.compiler.toolchain import KernelCompiler
from cutile.runtime import floats


@ct.kernel
def quant_int8(q: Mut[Tensor[i8, (1, "D")]], scale: Mut[Tensor[f32, (1, 1)]],
               x: Tensor[bf16, (-1, "D")], D: Const[int]) -> None:
    """Per-token (row) symmetric int8: scale = absmax / 127, q = clamp(round(x / scale))."""
    row = ct.load_tile_like(x, q).astype(f32)
    s = ct.maximum(ct.max(ct.abs(row)) / 127.0, 1e-12)
    q.store(ct.clamp(ct.round(row / s), -128.0, 127.0).astype(i8))
    scale.store(ct.broadcast_to(s, (1, 1)))


@ct.kernel
def quant_fp8(q: Mut[Tensor[u8, (1, "D")]], scale: Mut[Tensor[f32, (1, 1)]],
              x: Tensor[f32, (-1, "D")], D: Const[int]) -> None:
    """Per-token e4m3 with bytes out (what a checkpoint stores): absmax maps to 448."""
    row = ct.load_tile_like(x, q)
    s = ct.maximum(ct.max(ct.abs(row)) / 448.0, 1e-12)
    q.store((row / s).astype(f8e4m3).bitcast(u8))
    scale.store(s.reshape((1, 1)))


@ct.kernel
def dequant_dot(out: Mut[Tensor[f32, (1, 1)]], q: Tensor[u8, (-1, "D")],
                scale: Tensor[f32, (-1, 1)], w: Tensor[f32, ("D",)], D: Const[int]) -> None:
    """Bytes back to e4m3, times the row's scale, dotted with w: one number per row."""
    i = out.tile_index()[0]
    row = q.load_tile((1, D), (i, 0)).reshape((D,))
    values = row.bitcast(f8e4m3).astype(f32) * scale.load_tile((1, 1), (i, 0)).reshape(())
    out.store(ct.sum(values * w.load_tile((D,), (0,))).reshape((1, 1)))


@ct.kernel
def sparsemax(out: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")], N: Const[int]) -> None:
    """sparsemax(z) = max(z - tau, 0) with sum 1, without sorting: k_i = #{j: z_j >= z_i},
    s_i = their sum; i is in the support iff 1 + k_i z_i > s_i; tau = (sum of the support - 1)
    / its size."""
    z = ct.load_tile_like(x, out).reshape((N,))
    ge = z.reshape((1, N)) >= z.reshape((N, 1))  # [i, j]: z_j >= z_i
    k = ct.sum(ge.astype(f32), 1)
    s = ct.sum(ct.where(ge, z.reshape((1, N)), 0.0), 1)
    support = 1.0 + k * z > s
    tau = (ct.sum(ct.where(support, z, 0.0)) - 1.0) / ct.sum(support.astype(f32))
    out.store(ct.maximum(z - tau, 0.0).reshape((1, N)))


CASES = [("quant_int8", {"D": 256}), ("quant_fp8", {"D": 256}), ("dequant_dot", {"D": 256}),
         ("sparsemax", {"N": 64})]
RNG = np.random.default_rng(2026)
ROWS = 12
X = (RNG.standard_normal((ROWS, 256)) * np.exp(RNG.standard_normal((ROWS, 1)) * 2)
     ).astype(np.float32)
X[3] = 0.0  # an all-zero row: the scale floor keeps it finite
X[5, 7] = 1e4  # an outlier


def _quant_int8() -> list[np.ndarray]:
    q = ct.zeros((ROWS, 256), i8).partition((1, 256))
    s = ct.zeros((ROWS, 1), f32).partition((1, 1))
    return [np.asarray(a) for a in host(quant_int8(q, s, ct.from_numpy(X, bf16)).sync())[:2]]


def test_int8_quantization_matches_numpy() -> None:
    q, s = on_interpreter(_quant_int8)
    xb = ct.from_numpy(X, bf16).numpy()
    want_s = np.maximum(np.abs(xb).max(1, keepdims=True) / np.float32(127), np.float32(1e-12))
    np.testing.assert_array_equal(s, want_s)
    want_q = np.clip(np.round(xb / want_s), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(q, want_q)
    assert np.abs(q).max() == 127 and (q[3] == 0).all()
    assert (np.abs(xb / s - q) <= 0.5).all()  # within half a step (ties went to even)


def _quant_fp8() -> list[np.ndarray]:
    q = ct.zeros((ROWS, 256), u8).partition((1, 256))
    s = ct.zeros((ROWS, 1), f32).partition((1, 1))
    return [np.asarray(a) for a in host(quant_fp8(q, s, ct.from_numpy(X)).sync())[:2]]


def test_fp8_quantizer_stores_the_rules_bytes() -> None:
    q, s = on_interpreter(_quant_fp8)
    want_s = np.maximum(np.abs(X).max(1, keepdims=True) / np.float32(448), np.float32(1e-12))
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(q, floats.f32_to_f8_bits(X / want_s, "f8e4m3"))
    back = floats.f8_bits_to_f32(q, "f8e4m3") * s
    assert not np.isnan(back).any()  # absmax / scale rounds to 448 at most: never NaN
    np.testing.assert_allclose(back, X, rtol=2**-4, atol=float(s.max()) * 2**-9)


W = RNG.standard_normal(256).astype(np.float32)


def _dequant_dot() -> list[np.ndarray]:
    q, s = on_interpreter(_quant_fp8)
    out = ct.zeros((ROWS, 1), f32).partition((1, 1))
    return [np.asarray(host(dequant_dot(out, ct.from_numpy(q), ct.from_numpy(s),
                                        ct.from_numpy(W)).sync())[0]), q, s]


def test_dequantized_dot_product() -> None:
    out, q, s = on_interpreter(_dequant_dot)
    want = (floats.f8_bits_to_f32(q, "f8e4m3") * s) @ W
    np.testing.assert_allclose(out[:, 0], want, rtol=1e-5, atol=1e-3)


Z = (RNG.standard_normal((8, 64)) * 2).astype(np.float32)
Z[2] = 0.0  # a tie everywhere: uniform 1/64
Z[4, 10] = 50.0  # one dominant value: a one-hot result


def sparsemax_ref(z: np.ndarray) -> np.ndarray:
    srt = -np.sort(-z, axis=1)
    cum = np.cumsum(srt, axis=1)
    k = np.arange(1, z.shape[1] + 1)
    support = 1 + k * srt > cum
    kz = support.sum(1, keepdims=True)
    tau = (np.take_along_axis(cum, kz - 1, 1) - 1) / kz
    return np.maximum(z - tau, 0)


def _sparsemax() -> list[np.ndarray]:
    out = ct.zeros((8, 64), f32).partition((1, 64))
    return [np.asarray(host(sparsemax(out, ct.from_numpy(Z)).sync())[0])]


def test_sparsemax_matches_the_sorting_form() -> None:
    (p,) = on_interpreter(_sparsemax)
    np.testing.assert_allclose(p, sparsemax_ref(Z), atol=1e-6)
    np.testing.assert_allclose(p.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(p[2], 1 / 64)
    assert p[4, 10] == 1.0 and (np.delete(p[4], 10) == 0).all()


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assembled(compiler, __file__, CASES)
    assert "8388608" in texts["quant_int8"]  # ct.round's 2**23
    assert "bitcast" in texts["quant_fp8"] and "cmpf greater_than ordered" in texts["quant_fp8"]
    assert "reduce" in texts["sparsemax"]


@pytest.mark.gpu
@pytest.mark.parametrize("launch", [_quant_int8, _quant_fp8], ids=["int8", "fp8"])
def test_gpu_quantizers_are_bit_exact(on_cuda: object, launch: Any) -> None:
    for got, want in zip(launch(), on_interpreter(launch), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
def test_gpu_sparsemax_and_dot(on_cuda: object) -> None:
    np.testing.assert_allclose(_sparsemax()[0], sparsemax_ref(Z), atol=1e-5)
    got = _dequant_dot()[0]
    np.testing.assert_allclose(got, on_interpreter(_dequant_dot)[0], rtol=1e-5, atol=1e-3)

