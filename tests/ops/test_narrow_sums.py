"""Sums and products (ct.sum, ct.prod, ct.cumsum, ct.cumprod, ct.scan add/mul) of ints narrower
than 32 bits and of bools are 32-bit, as Triton's tl.sum: i8/i16/bool -> i32, u8/u16 -> u32
(an i8 row of 128 ones sums to 128, not -128); max and min keep the dtype."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, i8, i16, i32, u8, u16, u32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def narrow_sums(s: Mut[Tensor[i32, (16,)]], p: Mut[Tensor[i32, (16,)]],
                n: Mut[Tensor[i32, (16,)]], us: Mut[Tensor[u32, (16,)]],
                whole: Mut[Tensor[i32, (1, 1)]], mx: Mut[Tensor[i8, (16,)]],
                x: Tensor[i8, (-1, -1)], y: Tensor[u8, (-1, -1)], w: Tensor[i16, (-1, -1)]) -> None:
    t = x.load_tile((16, 128), (ct.block_id(0), 0))
    s.store(ct.sum(t, 1))
    p.store(ct.prod(w.load_tile((16, 8), (ct.block_id(0), 0)), 1))
    n.store(ct.sum(t > 0, axis=1))  # a count
    us.store(ct.sum(y.load_tile((16, 128), (ct.block_id(0), 0)), 1))
    whole.store(ct.sum(t < 0, keepdims=True))
    mx.store(ct.max(t, 1) + ct.min(t, 1))  # keeps i8 (and wraps in i8)


@ct.kernel
def narrow_scans(c: Mut[Tensor[i32, (128,)]], r: Mut[Tensor[u32, (128,)]],
                 q: Mut[Tensor[i32, (128,)]], b: Mut[Tensor[i32, (128,)]],
                 x: Tensor[i8, (-1,)], y: Tensor[u16, (-1,)], z: Tensor[i8, (-1,)]) -> None:
    t = ct.load_tile_like(x, c)
    c.store(ct.cumsum(t, 0))
    r.store(ct.scan(ct.load_tile_like(y, r), 0, "add", reverse=True))
    q.store(ct.cumprod(ct.load_tile_like(z, q), 0))
    b.store(ct.cumsum(t > 100, 0))


CASES = [("narrow_sums", {}), ("narrow_scans", {})]


def _sum_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    x = rng.integers(-128, 128, (32, 128)).astype(np.int8)
    x[0] = 127  # 128 * 127 = 16256: wraps in i8
    x[1] = 1  # 128 ones: -128 in i8
    y = rng.integers(0, 256, (32, 128)).astype(np.uint8)
    y[3] = 255
    w = rng.integers(-9, 10, (32, 8)).astype(np.int16)  # |product| < 10**8: wraps in i16
    return x, y, w


def _sums() -> list[np.ndarray]:
    x, y, w = _sum_inputs()
    outs = [ct.zeros((32,), i32).partition((16,)) for _ in range(3)]
    outs += [ct.zeros((32,), u32).partition((16,)), ct.zeros((2, 1), i32).partition((1, 1)),
             ct.zeros((32,), i8).partition((16,))]
    return host(narrow_sums(*outs, ct.from_numpy(x), ct.from_numpy(y), ct.from_numpy(w),
                            grid=(2,)).sync())


def _scan_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(22)
    x = rng.integers(90, 128, 256).astype(np.int8)  # the running sum passes 127 at once
    y = rng.integers(60000, 65536, 256).astype(np.uint16)
    z = rng.integers(-3, 4, 256).astype(np.int8)
    z[z == 0] = 2
    z[:128][20:] = 1  # keep the i32 product exact: 3**20 < 2**31
    z[128:][20:] = -1
    return x, y, z


def _scans() -> list[np.ndarray]:
    x, y, z = _scan_inputs()
    outs = [ct.zeros((256,), i32).partition((128,)), ct.zeros((256,), u32).partition((128,)),
            ct.zeros((256,), i32).partition((128,)), ct.zeros((256,), i32).partition((128,))]
    return host(narrow_scans(*outs, ct.from_numpy(x), ct.from_numpy(y),
                             ct.from_numpy(z)).sync())


def _halves(n: int) -> list[slice]:
    return [slice(0, n), slice(n, 2 * n)]


def test_sums_are_32_bit_on_the_interpreter() -> None:
    s, p, n, us, whole, mx, x, y, w = on_interpreter(_sums)
    np.testing.assert_array_equal(s, x.sum(1, dtype=np.int32))
    assert s[0] == 16256 and s[1] == 128 and s.dtype == np.int32
    np.testing.assert_array_equal(p, w.prod(1, dtype=np.int32))
    np.testing.assert_array_equal(n, (x > 0).sum(1))
    np.testing.assert_array_equal(us, y.sum(1, dtype=np.uint32))
    assert us[3] == 255 * 128 and us.dtype == np.uint32
    np.testing.assert_array_equal(whole[:, 0], [(x[h] < 0).sum() for h in _halves(16)])
    want_mx = (x.max(1).astype(np.int32) + x.min(1)).astype(np.int8)  # i8 arithmetic wraps
    np.testing.assert_array_equal(mx, want_mx)


def test_scans_are_32_bit_on_the_interpreter() -> None:
    c, r, q, b, x, y, z = on_interpreter(_scans)
    for h in _halves(128):
        np.testing.assert_array_equal(c[h], np.cumsum(x[h], dtype=np.int32))
        np.testing.assert_array_equal(r[h], np.flip(np.cumsum(np.flip(y[h]), dtype=np.uint32)))
        np.testing.assert_array_equal(q[h], np.cumprod(z[h], dtype=np.int32))
        np.testing.assert_array_equal(b[h], np.cumsum(x[h] > 100))
    assert c[127] > 127 and r[0] > 65535


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    sums, scans = assemble(compiler, __file__, CASES)
    # the narrow operand is extended (signed for i8/i16, unsigned for u8/u16 and bools), then
    # reduced as 32-bit ints; max and min stay i8
    assert "exti %tile signed : tile<16x128xi8> -> tile<16x128xi32>" in sums
    assert "tile<16x8xi16> -> tile<16x8xi32>" in sums
    assert "unsigned : tile<16x128xi1> -> tile<16x128xi32>" in sums
    assert "unsigned : tile<2048xi1> -> tile<2048xi32>" in sums  # the whole-tile count
    assert sums.count("identities=[0 : i32] : tile<16x128xi32> -> tile<16xi32>") == 3
    assert "identities=[-128 : i8] : tile<16x128xi8> -> tile<16xi8>" in sums
    assert scans.count("exti") == 4
    assert scans.count("scan %") == 4 and scans.count(": tile<128xi32> -> tile<128xi32>") == 4


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_sums(), on_interpreter(_sums))
    same(_scans(), on_interpreter(_scans))
