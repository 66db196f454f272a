"""`//`, `%` and shifts as NumPy computes them, on the interpreter and in the lowering.

Floats: `a // b` is the floor of the exact quotient (NumPy's floor_divide, CPython's float //,
constant folding), so `a // b * b + a % b == a` (`1.0 // 0.1 == 9.0`, where floor(1.0 / 0.1) is
10.0). Ints: `x // 0 == x % 0 == 0`, MIN // -1 wraps to MIN; shifts by the width or more (or by a
negative amount) give 0, or the sign for a signed `>>`. Tile IR leaves those undefined, so the
lowering selects the results."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f16, f32, f64, i8, i32, i64, u32
from cutile.compiler.toolchain import KernelCompiler

FLOAT_PAIRS = [(1.0, 0.1), (7.0, 0.7), (-1.0, 0.1), (0.55, 0.05), (1.0, -0.1), (-7.5, 2.0),
               (7.5, -2.0), (-4.0, 2.0), (4.0, -2.0), (0.5, 2.0), (-0.5, -2.0), (3.0, 0.0),
               (-3.0, 0.0), (0.0, 0.0), (-1.0, np.inf), (1.0, np.inf), (np.inf, 2.0),
               (np.nan, 1.0), (1e30, 3e-10), (5.0, 1e-45), (-0.0, 3.0), (2.0, 3.0)]


@ct.kernel
def float_div(q: Mut[Tensor[f32, (32,)]], r: Mut[Tensor[f32, (32,)]],
              qh: Mut[Tensor[f16, (32,)]], rh: Mut[Tensor[f16, (32,)]],
              qd: Mut[Tensor[f64, (32,)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
              xh: Tensor[f16, (-1,)], yh: Tensor[f16, (-1,)], xd: Tensor[f64, (-1,)],
              yd: Tensor[f64, (-1,)]) -> None:
    a, b = ct.load_tile_like(x, q), ct.load_tile_like(y, q)
    q.store(a // b)
    r.store(a % b)
    ah, bh = ct.load_tile_like(xh, qh), ct.load_tile_like(yh, qh)
    qh.store(ah // bh)
    rh.store(ah % bh)
    qd.store(ct.load_tile_like(xd, qd) // ct.load_tile_like(yd, qd))


@ct.kernel
def int_div(q8: Mut[Tensor[i8, (64,)]], r8: Mut[Tensor[i8, (64,)]], q: Mut[Tensor[i32, (64,)]],
            r: Mut[Tensor[i32, (64,)]], qu: Mut[Tensor[u32, (64,)]], ru: Mut[Tensor[u32, (64,)]],
            q64: Mut[Tensor[i64, (64,)]], x8: Tensor[i8, (-1,)], y8: Tensor[i8, (-1,)],
            x: Tensor[i32, (-1,)], y: Tensor[i32, (-1,)], xu: Tensor[u32, (-1,)],
            yu: Tensor[u32, (-1,)], x64: Tensor[i64, (-1,)], y64: Tensor[i64, (-1,)]) -> None:
    a8, b8 = ct.load_tile_like(x8, q8), ct.load_tile_like(y8, q8)
    q8.store(a8 // b8)
    r8.store(a8 % b8)
    a, b = ct.load_tile_like(x, q), ct.load_tile_like(y, q)
    q.store(a // b)
    r.store(a % b + ct.cdiv(a, b))
    au, bu = ct.load_tile_like(xu, qu), ct.load_tile_like(yu, qu)
    qu.store(au // bu)
    ru.store(au % bu)
    q64.store(ct.load_tile_like(x64, q64) // ct.load_tile_like(y64, q64) + 7 // 2 * 0)


@ct.kernel
def shifts(l8: Mut[Tensor[i8, (64,)]], r8: Mut[Tensor[i8, (64,)]], l32: Mut[Tensor[i32, (64,)]],
           r: Mut[Tensor[i32, (64,)]], lu: Mut[Tensor[u32, (64,)]], ru: Mut[Tensor[u32, (64,)]],
           r64: Mut[Tensor[i64, (64,)]], x8: Tensor[i8, (-1,)], s8: Tensor[i8, (-1,)],
           x: Tensor[i32, (-1,)], s: Tensor[i32, (-1,)], xu: Tensor[u32, (-1,)],
           su: Tensor[u32, (-1,)], x64: Tensor[i64, (-1,)], s64: Tensor[i64, (-1,)]) -> None:
    a8, n8 = ct.load_tile_like(x8, l8), ct.load_tile_like(s8, l8)
    l8.store(a8 << n8)
    r8.store(a8 >> n8)
    a, n = ct.load_tile_like(x, l32), ct.load_tile_like(s, l32)
    l32.store(a << n)
    r.store(a >> n)
    au, nu = ct.load_tile_like(xu, lu), ct.load_tile_like(su, lu)
    lu.store(au << nu)
    ru.store(au >> nu)
    r64.store((ct.load_tile_like(x64, r64) >> ct.load_tile_like(s64, r64)) + (a.astype(i64) << 31))


CASES = [("float_div", {}), ("int_div", {}), ("shifts", {})]


def _float_inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    x = rng.uniform(-10, 10, 64)
    y = rng.choice([0.1, 0.3, -0.7, 1e-3, 2.5, -3.0], 64) * rng.uniform(0.5, 2, 64)
    for i, (a, b) in enumerate(FLOAT_PAIRS):
        x[i], y[i] = a, b
    return x, y


def _floats() -> list[np.ndarray]:
    x, y = _float_inputs()
    outs = [ct.zeros((64,), d).partition((32,)) for d in (f32, f32, f16, f16, f64)]
    with np.errstate(over="ignore"):  # 1e30 is inf in f16
        ins = [x.astype(np.float32), y.astype(np.float32), x.astype(np.float16),
               y.astype(np.float16), x, y]
    return host(float_div(*outs, *(ct.from_numpy(v) for v in ins)).sync())


def _int_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(32)
    out = []
    for dt in (np.int8, np.int32, np.uint32, np.int64):
        info = np.iinfo(dt)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), 128, endpoint=True).astype(dt)
        y = rng.integers(max(info.min, -9), 10, 128, endpoint=True).astype(dt)
        x[:4] = [info.min, info.min, 7, info.max]
        y[:4] = [-1 if info.min else 0, 0, 0, 0]  # MIN // -1 (unsigned: 0 // 0) and x // 0
        out += [x, y]
    return out


def _ints() -> list[np.ndarray]:
    outs = [ct.zeros((128,), d).partition((64,)) for d in (i8, i8, i32, i32, u32, u32, i64)]
    return host(int_div(*outs, *(ct.from_numpy(v) for v in _int_inputs())).sync())


def _shift_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(33)
    out = []
    for dt, bits in ((np.int8, 8), (np.int32, 32), (np.uint32, 32), (np.int64, 64)):
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, 128, endpoint=True, dtype=dt)
        lo = -3 if info.min else 0
        n = rng.integers(lo, bits + 9, 128).astype(dt)  # past the width, and negative
        n[:4] = [bits - 1, bits, bits + 1, lo if info.min else info.max]
        out += [x, n]
    return out


def _shifts() -> list[np.ndarray]:
    outs = [ct.zeros((128,), d).partition((64,)) for d in (i8, i8, i32, i32, u32, u32, i64)]
    return host(shifts(*outs, *(ct.from_numpy(v) for v in _shift_inputs())).sync())


def test_float_floordiv_is_numpys() -> None:
    q, r, qh, rh, qd, x32, y32, xh, yh, x, y = on_interpreter(_floats)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q, np.floor_divide(x32, y32))
        np.testing.assert_array_equal(r, np.mod(x32, y32))
        np.testing.assert_array_equal(qh, np.floor_divide(xh, yh))
        np.testing.assert_array_equal(rh, np.mod(xh, yh))
        np.testing.assert_array_equal(qd, np.floor_divide(x, y))
    assert list(q[:3]) == [9.0, 10.0, -10.0]  # 1.0 // 0.1 is 9, not floor(1.0 / 0.1) = 10
    assert list(qd[:4]) == [1.0 // 0.1, 7.0 // 0.7, -1.0 // 0.1, 0.55 // 0.05]  # Python's
    assert np.isinf(q[11]) and np.isinf(q[12]) and np.isnan(q[13])  # x // 0.0 is x / 0.0
    ok = np.isfinite(q) & (y32 != 0) & np.isfinite(x32) & np.isfinite(y32)
    np.testing.assert_allclose(q[ok] * y32[ok] + r[ok], x32[ok], rtol=1e-6, atol=1e-6)


def test_int_division_by_zero_and_overflow() -> None:
    q8, r8, q, r, qu, ru, q64, *ins = on_interpreter(_ints)
    x8, y8, x, y, xu, yu, x64, y64 = ins
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q8, np.floor_divide(x8, y8))
        np.testing.assert_array_equal(r8, np.mod(x8, y8))
        np.testing.assert_array_equal(q, np.floor_divide(x, y))
        cdiv = -np.floor_divide(-x, y)
        np.testing.assert_array_equal(r, np.mod(x, y) + cdiv)
        np.testing.assert_array_equal(qu, np.floor_divide(xu, yu))
        np.testing.assert_array_equal(ru, np.mod(xu, yu))
        np.testing.assert_array_equal(q64, np.floor_divide(x64, y64))
    assert list(q[:4]) == [-2**31, 0, 0, 0] and list(r8[:4]) == [0, 0, 0, 0]
    assert list(qu[:4]) == [0, 0, 0, 0] and list(ru[:4]) == [0, 0, 0, 0]


def test_shifts_past_the_width() -> None:
    l8, r8, l32, r32, lu, ru, r64, *ins = on_interpreter(_shifts)
    x8, n8, x, n, xu, nu, x64, n64 = ins
    np.testing.assert_array_equal(l8, np.left_shift(x8, n8))
    np.testing.assert_array_equal(r8, np.right_shift(x8, n8))
    np.testing.assert_array_equal(l32, np.left_shift(x, n))
    np.testing.assert_array_equal(r32, np.right_shift(x, n))
    np.testing.assert_array_equal(lu, np.left_shift(xu, nu))
    np.testing.assert_array_equal(ru, np.right_shift(xu, nu))
    want64 = np.right_shift(x64, n64) + np.left_shift(x.astype(np.int64), 31)
    np.testing.assert_array_equal(r64, want64)
    assert l32[1] == l32[2] == 0 and r32[1] == (-1 if x[1] < 0 else 0)
    assert lu[3] == ru[3] == 0  # a shift by 2**32 - 1


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    floats, ints, shifted = assemble(compiler, __file__, CASES)
    # float //: from the remainder (npy_divmod), not floor(divf); f16 works in f32
    assert floats.count("remf") == 5 and "floor" in floats
    assert "tile<32xf16> -> tile<32xf32>" in floats
    # a zero (and for signed ints a -1) divisor is replaced by 1, its lanes selected
    assert ints.count("divi") == 5 and ints.count("remi") == 3
    assert "cmpi equal" in ints and "select" in ints
    # shift amounts compare unsigned with the width (the constant 31 too: tileiras folds it)
    assert shifted.count("cmpi greater_than_or_equal") == 8
    assert "shri" in shifted and "shli" in shifted


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_floats(), on_interpreter(_floats))
    same(_ints(), on_interpreter(_ints))
    same(_shifts(), on_interpreter(_shifts))
