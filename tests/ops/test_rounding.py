"""ct.round (ties to even, `decimals` as NumPy), ct.trunc and ct.sign: the interpreter against
NumPy bit for bit, the GPU's round formula (compiler/ops/rounding.py) evaluated step by step in
NumPy on edge cases and sweeps, lowering and assembly, and (with -m gpu) CUDA against the
interpreter bit for bit."""

from typing import Any

import numpy as np
import pytest
from opcheck import assembled, host, on_interpreter

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f16, f32, f64, i32, u8
from cutile.compiler.ops.composed import NumpySteps
from cutile.compiler.ops.rounding import rint_formula
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def rounds32(r0: Mut[Tensor[f32, ("B",)]], r2: Mut[Tensor[f32, ("B",)]],
             rm2: Mut[Tensor[f32, ("B",)]], tr: Mut[Tensor[f32, ("B",)]],
             sg: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, r0)
    r0.store(ct.round(t))
    r2.store(ct.round(t, 2))
    rm2.store(ct.round(t, decimals=-2))
    tr.store(ct.trunc(t))
    sg.store(ct.sign(t))


@ct.kernel
def rounds64(r0: Mut[Tensor[f64, ("B",)]], r3: Mut[Tensor[f64, ("B",)]],
             tr: Mut[Tensor[f64, ("B",)]], sg: Mut[Tensor[f64, ("B",)]], x: Tensor[f64, (-1,)],
             B: Const[int]) -> None:
    t = ct.load_tile_like(x, r0)
    r0.store(ct.round(t))
    r3.store(ct.round(t, 3))
    tr.store(ct.trunc(t))
    sg.store(ct.sign(t))


@ct.kernel
def rounds16(h0: Mut[Tensor[f16, ("B",)]], h1: Mut[Tensor[f16, ("B",)]],
             b0: Mut[Tensor[bf16, ("B",)]], bt: Mut[Tensor[bf16, ("B",)]],
             h: Tensor[f16, (-1,)], g: Tensor[bf16, (-1,)], B: Const[int]) -> None:
    th = ct.load_tile_like(h, h0)
    tg = ct.load_tile_like(g, b0)
    h0.store(ct.round(th))
    h1.store(ct.round(th, 1))
    b0.store(ct.round(tg))
    bt.store(ct.trunc(tg) + ct.sign(tg))


@ct.kernel
def int_rounds(z: Mut[Tensor[i32, (64,)]], w: Mut[Tensor[u8, (64,)]],
               x: Tensor[i32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(ct.round(t) + ct.round(t, 3) * 10 + ct.sign(t) * 100)
    w.store(ct.sign(t.astype(u8)))


CASES = [("rounds32", {"B": 256}), ("rounds64", {"B": 256}), ("rounds16", {"B": 256}),
         ("int_rounds", {})]

EDGES = [0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.49999997, -0.49999997, 0.0, -0.0, 1e-45, -1e-45,
         0.3, -0.3, 8388607.5, -8388607.5, 8388608.0, 8388609.0, 16777215.0, 4194303.5, 1e30,
         -1e30, np.inf, -np.inf, np.nan, 1.005, 2.675, 0.125, 0.375, -0.125, 1234.5, 1250.0,
         -1350.0, 3.4028235e38, 1.1754944e-38]


def f32_values() -> np.ndarray:
    rng = np.random.default_rng(26)
    bits = rng.integers(0, 2**32, 1 << 14, dtype=np.uint64).astype(np.uint32).view(np.float32)
    spread = (rng.standard_normal(1 << 14) * 10.0 ** rng.integers(-3, 9, 1 << 14))
    halves = np.arange(-600, 600, dtype=np.float32) / np.float32(2)  # every .5 tie nearby
    return np.concatenate([np.float32(EDGES), bits, spread.astype(np.float32), halves])


def f64_values() -> np.ndarray:
    big = np.float64([2.0**52 - 0.5, -(2.0**52 - 0.5), 2.0**52, 2.0**52 + 1, 2.0**53 - 1,
                      4503599627370495.5, 0.49999999999999994, -0.49999999999999994, 1e300])
    rng = np.random.default_rng(64)
    spread = rng.standard_normal(1 << 12) * 10.0 ** rng.integers(-3, 16, 1 << 12)
    return np.concatenate([np.float64(EDGES), big, spread, np.arange(-600, 600) / 2.0])


def _pad(v: np.ndarray) -> np.ndarray:
    n = -(-len(v) // 256) * 256
    out = np.zeros(n, v.dtype)
    out[:len(v)] = v
    return out


def _rounds32() -> list[np.ndarray]:
    x = _pad(f32_values())
    outs = [ct.zeros((len(x),), f32).partition((256,)) for _ in range(5)]
    return [np.asarray(v) for v in host(rounds32(*outs, ct.from_numpy(x)).sync())]


def _rounds64() -> list[np.ndarray]:
    x = _pad(f64_values())
    outs = [ct.zeros((len(x),), f64).partition((256,)) for _ in range(4)]
    return [np.asarray(v) for v in host(rounds64(*outs, ct.from_numpy(x)).sync())]


def _rounds16() -> list[np.ndarray]:
    h = np.arange(65536, dtype=np.uint16).view(np.float16)  # every f16 value
    outs = [ct.zeros((65536,), d).partition((256,)) for d in (f16, f16, bf16, bf16)]
    g = ct.from_numpy(np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32),
                      bf16)
    return [np.asarray(v) for v in host(rounds16(*outs, ct.from_numpy(h), g).sync())]


def _int_rounds() -> list[np.ndarray]:
    x = np.arange(-32, 32, dtype=np.int32) * 7
    outs = [ct.zeros((64,), i32).partition((64,)), ct.zeros((64,), u8).partition((64,))]
    return [np.asarray(v) for v in host(int_rounds(*outs, ct.from_numpy(x)).sync())]


def bits_equal(got: Any, want: Any) -> None:
    """Equal bit for bit (-0.0 differs from 0.0); any NaN equals any NaN."""
    g, w = np.asarray(got), np.asarray(want)
    nan = np.isnan(w)
    np.testing.assert_array_equal(np.isnan(g), nan)
    u = f"u{w.dtype.itemsize}"
    np.testing.assert_array_equal(g[~nan].view(u), w[~nan].view(u))


def test_round_formula_is_rint_on_every_case() -> None:
    """The GPU's steps (|x| + 2**p - 2**p, the sign copied back), in NumPy: bit-identical to
    np.rint, ties to even, -0.0 and NaN included."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = f32_values()
        bits_equal(rint_formula(NumpySteps(np.dtype(np.float32)), x, 23), np.rint(x))
        halves = (np.arange(65536, dtype=np.uint16).view(np.float16)).astype(np.float32)
        bits_equal(rint_formula(NumpySteps(np.dtype(np.float32)), halves, 23), np.rint(halves))
        d = f64_values()
        bits_equal(rint_formula(NumpySteps(np.dtype(np.float64)), d, 52), np.rint(d))


def test_interpreter_matches_numpy() -> None:
    x = _pad(f32_values())
    r0, r2, rm2, tr, sg, _ = on_interpreter(_rounds32)
    with np.errstate(over="ignore", invalid="ignore"):
        for got, want in ((r0, np.round(x)), (r2, np.round(x, 2)), (rm2, np.round(x, -2)),
                          (tr, np.trunc(x)), (sg, np.sign(x))):
            bits_equal(got, want)
        d = _pad(f64_values())
        r0, r3, tr, sg, _ = on_interpreter(_rounds64)
        for got, want in ((r0, np.round(d)), (r3, np.round(d, 3)), (tr, np.trunc(d)),
                          (sg, np.sign(d))):
            bits_equal(got, want)
    assert r0.dtype == np.float64


def test_half_floats_round_in_f32() -> None:
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    h0, h1, b0, bt, _, _ = on_interpreter(_rounds16)
    with np.errstate(over="ignore", invalid="ignore"):
        bits_equal(h0, np.rint(h))  # every f16 value: rint is exact in f16
        wide = h.astype(np.float32)
        bits_equal(h1, (np.rint(wide * np.float32(10)) / np.float32(10)).astype(np.float16))
        g = ct.from_numpy(wide, ct.bf16).numpy()
        bits_equal(b0, ct.from_numpy(np.rint(g), ct.bf16).numpy())
        bits_equal(bt, ct.from_numpy(np.trunc(g) + np.sign(g), ct.bf16).numpy())


def test_integer_tiles() -> None:
    z, w, _ = on_interpreter(_int_rounds)
    x = np.arange(-32, 32, dtype=np.int32) * 7
    np.testing.assert_array_equal(z, x + x * 10 + np.sign(x) * 100)
    np.testing.assert_array_equal(w, np.sign(x.astype(np.uint8)))


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assembled(compiler, __file__, CASES)
    t32 = texts["rounds32"]
    assert "8388608" in t32 and "absf" in t32 and "ori" in t32  # 2**23, |x|, the sign bit
    assert "ceil" in t32 and "floor" in t32  # trunc
    assert "4503599627370496" in texts["rounds64"]  # 2**52
    assert "tile<256xf16> -> tile<256xf32>" in texts["rounds16"]  # f16 rounds in f32


LAUNCHES = [_rounds32, _rounds64, _rounds16, _int_rounds]


@pytest.mark.gpu
@pytest.mark.parametrize("launch", LAUNCHES, ids=lambda f: f.__name__.strip("_"))
def test_gpu_matches_interpreter_bit_for_bit(on_cuda: object, launch: Any) -> None:
    for got, want in zip(launch(), on_interpreter(launch), strict=True):
        if np.asarray(want).dtype.kind == "f":
            bits_equal(got, want)
        else:
            np.testing.assert_array_equal(got, want)
