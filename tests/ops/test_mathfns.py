"""The math functions of compiler/ops/mathfns.py: tan, sinh, cosh, atan2, pow, umulhi, fma,
clamp, sigmoid, log1p, expm1, isnan, isinf, isfinite. The interpreter against NumPy (exact
where NumPy is), fma against exact rationals, the composed formulas' accuracy evaluated step by
step in float32, lowering and assembly, and (with -m gpu) CUDA against the interpreter."""

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from opcheck import assembled, host, on_interpreter

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f16, f32, f64, i32, u32, u64
from cutile.compiler.ops.composed import NumpySteps
from cutile.compiler.ops.mathfns import expm1_formula, log1p_formula, sigmoid_formula
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def trig(a: Mut[Tensor[f32, ("B",)]], b: Mut[Tensor[f32, ("B",)]], c: Mut[Tensor[f32, ("B",)]],
         d: Mut[Tensor[f32, ("B",)]], e: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)],
         y: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t, u = ct.load_tile_like(x, a), ct.load_tile_like(y, a)
    a.store(ct.tan(t))
    b.store(ct.sinh(t))
    c.store(ct.cosh(t))
    d.store(ct.atan2(t, u))
    e.store(ct.pow(ct.abs(t), u))


@ct.kernel
def composed(s: Mut[Tensor[f32, ("B",)]], l1: Mut[Tensor[f32, ("B",)]],
             e1: Mut[Tensor[f32, ("B",)]], h: Mut[Tensor[f16, ("B",)]],
             g: Mut[Tensor[bf16, ("B",)]], d: Mut[Tensor[f64, ("B",)]], x: Tensor[f32, (-1,)],
             B: Const[int]) -> None:
    t = ct.load_tile_like(x, s)
    s.store(ct.sigmoid(t))
    l1.store(ct.log1p(t))
    e1.store(ct.expm1(t))
    h.store(ct.sigmoid(t.astype(f16)))
    g.store(ct.log1p(t.astype(bf16)))
    d.store(ct.expm1(t.astype(f64)))


@ct.kernel
def fused(f: Mut[Tensor[f32, ("B",)]], h: Mut[Tensor[f16, ("B",)]],
          d: Mut[Tensor[f64, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
          z: Tensor[f32, (-1,)], B: Const[int]) -> None:
    a, b, c = ct.load_tile_like(x, f), ct.load_tile_like(y, f), ct.load_tile_like(z, f)
    f.store(ct.fma(a, b, c))
    h.store(ct.fma(a.astype(f16), b.astype(f16), 1.0))
    d.store(ct.fma(a.astype(f64), b.astype(f64), c.astype(f64)))


@ct.kernel
def limits(c: Mut[Tensor[f32, ("B",)]], ci: Mut[Tensor[i32, ("B",)]],
           flags: Mut[Tensor[i32, ("B",)]], x: Tensor[f32, (-1,)], lo: Tensor[f32, (-1,)],
           B: Const[int]) -> None:
    t = ct.load_tile_like(x, c)
    c.store(ct.clamp(t, ct.load_tile_like(lo, c), 1.0))
    ci.store(ct.clamp(ct.arange(B, i32) - 100, -50, 50))
    nan, inf, fin = ct.isnan(t), ct.isinf(t), ct.isfinite(t)
    ints = ct.isnan(ct.arange(B, i32)) | ~ct.isfinite(ct.arange(B, i32))  # never, for ints
    flags.store(nan.astype(i32) + inf.astype(i32) * 2 + fin.astype(i32) * 4 + ints.astype(i32))


@ct.kernel
def high(h32: Mut[Tensor[u32, ("B",)]], h64: Mut[Tensor[u64, ("B",)]], x: Tensor[u32, (-1,)],
         y: Tensor[u64, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, h32)
    h32.store(ct.umulhi(t, 0x9E3779B9))
    v = ct.load_tile_like(y, h64)
    h64.store(ct.umulhi(v, v ^ 0xDEADBEEFCAFEF00D))


CASES = [("trig", {"B": 256}), ("composed", {"B": 256}), ("fused", {"B": 256}),
         ("limits", {"B": 256}), ("high", {"B": 256})]
N = 1024
RNG = np.random.default_rng(7)
SPECIAL = np.float32([0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 1e-4, -0.9999999, -1.0, -1.5, 88.0,
                      89.0, -104.0, -88.0, 20.0, -20.0, np.inf, -np.inf, np.nan, 0.5, 3.0])


def values() -> np.ndarray:
    spread = RNG.standard_normal(N - len(SPECIAL)) * 10.0 ** RNG.integers(-9, 2, N - len(SPECIAL))
    return np.concatenate([SPECIAL, spread.astype(np.float32)])


X = values()
Y = (RNG.standard_normal(N) * 3).astype(np.float32)
Z = (RNG.standard_normal(N) * 2).astype(np.float32)
LO = np.where(RNG.random(N) < 0.5, -1.0, np.nan).astype(np.float32)
U32 = RNG.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
U64 = RNG.integers(0, 2**63, N, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _trig() -> list[np.ndarray]:
    outs = [ct.zeros((N,), f32).partition((256,)) for _ in range(5)]
    return [np.asarray(v) for v in host(trig(*outs, ct.from_numpy(X),
                                              ct.from_numpy(Y)).sync())[:5]]


def _composed() -> list[np.ndarray]:
    outs = [ct.zeros((N,), d).partition((256,)) for d in (f32, f32, f32, f16, bf16, f64)]
    return [np.asarray(v) for v in host(composed(*outs, ct.from_numpy(X)).sync())[:6]]


def _fused() -> list[np.ndarray]:
    outs = [ct.zeros((N,), d).partition((256,)) for d in (f32, f16, f64)]
    return [np.asarray(v) for v in host(fused(*outs, ct.from_numpy(X), ct.from_numpy(Y),
                                              ct.from_numpy(Z)).sync())[:3]]


def _limits() -> list[np.ndarray]:
    outs = [ct.zeros((N,), d).partition((256,)) for d in (f32, i32, i32)]
    return [np.asarray(v) for v in host(limits(*outs, ct.from_numpy(X),
                                                ct.from_numpy(LO)).sync())[:3]]


def _high() -> list[np.ndarray]:
    outs = [ct.zeros((N,), u32).partition((256,)), ct.zeros((N,), u64).partition((256,))]
    return [np.asarray(v) for v in host(high(*outs, ct.from_numpy(U32),
                                              ct.from_numpy(U64)).sync())[:2]]


def test_interpreter_trig_is_numpy() -> None:
    a, b, c, d, e = on_interpreter(_trig)
    with np.errstate(all="ignore"):
        for got, want in ((a, np.tan(X)), (b, np.sinh(X)), (c, np.cosh(X)),
                          (d, np.arctan2(X, Y)), (e, np.power(np.abs(X), Y))):
            np.testing.assert_array_equal(got, want)


def test_interpreter_composed_are_exact() -> None:
    s, l1, e1, h, g, d = on_interpreter(_composed)
    x = X.astype(np.float64)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(s, (1 / (1 + np.exp(-x))).astype(np.float32))
        np.testing.assert_array_equal(l1, np.log1p(x).astype(np.float32))
        np.testing.assert_array_equal(e1, np.expm1(x).astype(np.float32))
        xh = X.astype(np.float16).astype(np.float64)
        np.testing.assert_array_equal(h, (1 / (1 + np.exp(-xh))).astype(np.float16))
        np.testing.assert_array_equal(d, np.expm1(x))
        xb = ct.from_numpy(X, bf16).numpy().astype(np.float64)
        np.testing.assert_array_equal(g, ct.from_numpy(np.log1p(xb), bf16).numpy())


def _ulps(got: np.ndarray, exact: np.ndarray) -> float:
    with np.errstate(over="ignore"):
        want = exact.astype(np.float32)
    ok = np.isfinite(want) & np.isfinite(got)
    err = np.abs(got[ok].astype(np.float64) - exact[ok]) / np.spacing(np.abs(want[ok]))
    return float(err.max())


@pytest.mark.parametrize("name,formula,exact", [
    ("sigmoid", sigmoid_formula, lambda v: 1 / (1 + np.exp(-v))),
    ("log1p", log1p_formula, np.log1p),
    ("expm1", expm1_formula, np.expm1)])
def test_formulas_are_accurate_in_f32(name: str, formula: Any, exact: Any) -> None:
    """The GPU's steps in float32 (NumPy's exp and log standing in for the GPU's): within 5
    ulp of exact, accurate near 0 where log(1 + x) and exp(x) - 1 would cancel, and the same
    NaNs and infinities."""
    rng = np.random.default_rng(3)
    x = np.concatenate([SPECIAL, (rng.standard_normal(1 << 16) * 10.0 ** rng.integers(
        -20, 2, 1 << 16)).astype(np.float32)])
    with np.errstate(all="ignore"):
        got = formula(NumpySteps(np.dtype(np.float32)), x)
        want = exact(x.astype(np.float64))
    assert _ulps(got, want) <= 5, name
    with np.errstate(over="ignore"):
        w32 = want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(w32))
    np.testing.assert_array_equal(np.isinf(got) & (got > 0), np.isinf(w32) & (w32 > 0))


def _fma_exact(a: float, b: float, c: float) -> float:
    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def test_interpreter_fma_rounds_once() -> None:
    f, h, d = on_interpreter(_fused)
    want = np.array([_fma_exact(float(a), float(b), float(c)) for a, b, c in zip(X, Y, Z,
                                                                                 strict=True)])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(f, want.astype(np.float32))
        np.testing.assert_array_equal(d, want)
        xh, yh = X.astype(np.float16), Y.astype(np.float16)
        wh = [_fma_exact(float(a), float(b), 1.0) for a, b in zip(xh, yh, strict=True)]
        np.testing.assert_array_equal(h, np.array(wh).astype(np.float16))
    # one rounding, not two: a * b + c with the product rounded first differs somewhere
    assert not np.array_equal(f, (X * Y + Z).astype(np.float32))


def test_interpreter_clamp_and_classes() -> None:
    c, ci, flags = on_interpreter(_limits)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(c, np.minimum(np.maximum(X, LO), np.float32(1.0)))
    assert np.isnan(c[np.isnan(LO)]).all()  # NaN propagates, as torch.clamp
    np.testing.assert_array_equal(ci, np.clip(np.arange(N) % 256 - 100, -50, 50))
    want = np.isnan(X) * 1 + np.isinf(X) * 2 + np.isfinite(X) * 4
    np.testing.assert_array_equal(flags, want)


def test_interpreter_umulhi() -> None:
    h32, h64 = on_interpreter(_high)
    np.testing.assert_array_equal(h32, (U32.astype(np.uint64) * 0x9E3779B9 >> 32).astype(np.uint32))
    other = U64 ^ np.uint64(0xDEADBEEFCAFEF00D)
    want = [(int(a) * int(b)) >> 64 for a, b in zip(U64, other, strict=True)]
    np.testing.assert_array_equal(h64, np.array(want, dtype=np.uint64))


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assembled(compiler, __file__, CASES)
    for op in ("tan", "sinh", "cosh", "atan2", "fpowf"):
        assert op in texts["trig"], op
    assert "fma" in texts["fused"] and "mulhii" in texts["high"]
    assert "maxf" in texts["limits"] and "propagate_nan" in texts["limits"]


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    tol = {np.dtype(np.float32): 2e-6, np.dtype(np.float16): 1e-3, np.dtype(np.float64): 1e-14}
    for launch in (_trig, _composed, _fused):
        for got, want in zip(launch(), on_interpreter(launch), strict=True):
            rtol = tol.get(np.asarray(want).dtype, 1e-2)  # bf16 computes in f32, rounds
            np.testing.assert_allclose(np.asarray(got, np.float64),
                                       np.asarray(want, np.float64), rtol=rtol, atol=1e-30)
    for launch in (_limits, _high):
        for got, want in zip(launch(), on_interpreter(launch), strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
def test_gpu_fma_is_exact(on_cuda: object) -> None:
    for got, want in zip(_fused(), on_interpreter(_fused), strict=True):
        np.testing.assert_array_equal(got, want)

