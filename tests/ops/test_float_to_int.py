"""`t.astype(int dtype)` of floats truncates toward zero and saturates: past the range gives the
dtype's min or max, NaN gives 0 (PTX cvt.rzi's rule; Tile IR's plain ftoi leaves those inputs
undefined, so the lowering clamps first). The interpreter used to wrap (300.0 -> i8 gave 44)."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from cutile.compiler.toolchain import KernelCompiler

SPECIAL = [np.nan, np.inf, -np.inf, 1e10, -1e10, 300.0, -300.0, -1.5, 2.9, -2.9, 127.9, 128.0,
           -128.5, -129.0, 255.5, 256.0, 65535.9, 65536.0, 2.0**31, -2.0**31, 2.0**32,
           2.0**63, -2.0**63, 2.0**64, -0.5, 0.0]
INT_DTYPES = (i8, u8, i16, u16, i32, u32, i64, u64)
NP_INTS = [np.dtype(n) for n in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8")]


@ct.kernel
def from_f32(a: Mut[Tensor[i8, (32,)]], b: Mut[Tensor[u8, (32,)]], c: Mut[Tensor[i16, (32,)]],
             d: Mut[Tensor[u16, (32,)]], e: Mut[Tensor[i32, (32,)]], f: Mut[Tensor[u32, (32,)]],
             g: Mut[Tensor[i64, (32,)]], h: Mut[Tensor[u64, (32,)]],
             x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(t.astype(i8))
    b.store(t.astype(u8))
    c.store(t.astype(i16))
    d.store(t.astype(u16))
    e.store(t.astype(i32))
    f.store(t.astype(u32))
    g.store(t.astype(i64))
    h.store(t.astype(u64))


@ct.kernel
def from_others(a: Mut[Tensor[i32, (32,)]], b: Mut[Tensor[u8, (32,)]],
                c: Mut[Tensor[i64, (32,)]], d: Mut[Tensor[i8, (32,)]], e: Mut[Tensor[u64, (32,)]],
                x: Tensor[f16, (-1,)], y: Tensor[f64, (-1,)], z: Tensor[bf16, (-1,)]) -> None:
    th = ct.load_tile_like(x, a)
    a.store(th.astype(i32))
    b.store(th.astype(u8))
    td = ct.load_tile_like(y, c)
    c.store(td.astype(i64))
    d.store(td.astype(i8))
    e.store(ct.load_tile_like(z, e).astype(u64))


CASES = [("from_f32", {}), ("from_others", {})]


def _reference(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Saturating conversion with exact Python ints (NaN 0)."""
    info = np.iinfo(dtype)
    out = []
    for v in np.asarray(x, np.float64):
        if np.isnan(v):
            out.append(0)
        elif np.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(int(v), int(info.min)), int(info.max)))  # int() truncates
    return np.array(out, dtype=dtype)


def _values(n: int) -> np.ndarray:
    rng = np.random.default_rng(41)
    x = rng.uniform(-3e4, 3e4, n)
    x[:len(SPECIAL)] = SPECIAL
    return x


def _f32() -> list[np.ndarray]:
    outs = [ct.zeros((64,), d).partition((32,)) for d in INT_DTYPES]
    x = _values(64).astype(np.float32)
    return host(from_f32(*outs, ct.from_numpy(x)).sync())


def _others() -> list[np.ndarray]:
    outs = [ct.zeros((64,), d).partition((32,)) for d in (i32, u8, i64, i8, u64)]
    x = _values(64)
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    z = ct.from_numpy(x.astype(np.float32), bf16)
    return host(from_others(*outs, ct.from_numpy(h), ct.from_numpy(x), z).sync())


def test_saturates_on_the_interpreter() -> None:
    *got, x = on_interpreter(_f32)
    for out, dt in zip(got, NP_INTS, strict=True):
        np.testing.assert_array_equal(out, _reference(x, dt), err_msg=str(dt))
    a, b, _, _, e, *_ = got
    assert a[0] == 0 and a[3] == 127 and a[5] == 127 and a[7] == -1  # NaN, 1e10, 300.0, -1.5
    assert b[7] == 0 and b[5] == 255 and e[3] == 2**31 - 1 and e[4] == -2**31


def test_other_float_widths() -> None:
    a, b, c, d, e, h, x, z = on_interpreter(_others)
    np.testing.assert_array_equal(a, _reference(h, np.dtype(np.int32)))
    np.testing.assert_array_equal(b, _reference(h, np.dtype(np.uint8)))
    np.testing.assert_array_equal(c, _reference(x, np.dtype(np.int64)))
    np.testing.assert_array_equal(d, _reference(x, np.dtype(np.int8)))
    np.testing.assert_array_equal(e, _reference(z.astype(np.float64), np.dtype(np.uint64)))


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    f32_text, others = assemble(compiler, __file__, CASES)
    # clamped into range before ftoi, NaN lanes selected to 0
    assert f32_text.count("ftoi") == 8 and f32_text.count("maxf") == 8
    assert f32_text.count("cmpf not_equal unordered") == 8
    assert "%cst_2147483520_f32" in f32_text  # the largest f32 below 2**31 bounds i32
    assert "tile<32xf16> -> tile<32xf32>" in others  # f16 converts through f32


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_f32(), on_interpreter(_f32))
    same(_others(), on_interpreter(_others))
