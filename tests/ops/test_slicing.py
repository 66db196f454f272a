"""Static sub-tiles: t[a:b, ...], t[i], ct.split and ct.extract; ct.cat of several tiles."""

from __future__ import annotations

import numpy as np
import pytest
from opcheck import assemble, host, on_interpreter, same

import cutile as ct
from cutile import Mut, Tensor, f32, i32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def halves(a: Mut[Tensor[f32, (16, 32)]], b: Mut[Tensor[f32, (16, 32)]],
           c: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1, -1)]) -> None:
    """Rotary-style halves of each row, a sliced column block, one row and a reassembly."""
    t = x.load_tile((16, 64), (ct.block_id(0), 0))
    lo, hi = ct.split(t, 2, axis=1)
    a.store(lo * 2.0 - hi)
    b.store(t[:, 32:64] + t[:, 0:32] + t[0:16, -32:] * 0.0)
    row = t[3] + t[-1] + t[:, :][2]
    c.store(ct.cat((row[0:32], ct.extract(row, 1, (32,))), 0))


@ct.kernel
def blocks(z: Mut[Tensor[i32, (4, 8)]], x: Tensor[i32, (-1, -1)]) -> None:
    t = x.load_tile((16, 16), (0, 0))
    q = ct.split(t, 4, 0)
    z.store(ct.extract(t, (2, 1), (4, 8)) + q[3][:, 8:16] + ct.extract(q[1], (0, 0), (4, 8)))


@ct.kernel
def joined(z: Mut[Tensor[f32, (4, 128)]], x: Tensor[f32, (-1, -1)]) -> None:
    """Several tiles joined pairwise into powers of two: 16 + 16 + 32 + 64 and a split put
    back in another order."""
    t = x.load_tile((4, 64), (0, 0))
    a, b, c, d = ct.split(t, 4, axis=1)
    z.store(ct.cat((a, b * 2.0, t[:, 32:64], t), axis=1) + ct.cat((d, c, b, a, t), 1))


CASES = [("halves", {}), ("blocks", {}), ("joined", {})]


def _x() -> np.ndarray:
    return np.arange(32 * 64, dtype=np.float32).reshape(32, 64) / 7


def _halves() -> list[np.ndarray]:
    outs = [ct.zeros((32, 32), f32).partition((16, 32)), ct.zeros((32, 32), f32).partition(
        (16, 32)), ct.zeros((128,), f32).partition((64,))]
    return host(halves(*outs, ct.from_numpy(_x())).sync())


def _blocks() -> list[np.ndarray]:
    x = np.arange(256, dtype=np.int32).reshape(16, 16)
    return host(blocks(ct.zeros((4, 8), i32).partition((4, 8)), ct.from_numpy(x)).sync())


def _joined() -> list[np.ndarray]:
    return host(joined(ct.zeros((4, 128), f32).partition((4, 128)), ct.from_numpy(_x())).sync())


def test_cat_of_several_tiles_matches_numpy() -> None:
    z, x = on_interpreter(_joined)
    t = x[:4, :64]
    a, b, c, d = np.split(t, 4, axis=1)
    want = np.concatenate([a, b * 2, t[:, 32:], t], 1) + np.concatenate([d, c, b, a, t], 1)
    np.testing.assert_array_equal(z, want)


def test_interpreter_matches_numpy_slicing() -> None:
    a, b, c, x = on_interpreter(_halves)
    for blk in range(2):
        t = x[16 * blk:16 * (blk + 1)]
        np.testing.assert_array_equal(a[16 * blk:16 * (blk + 1)], t[:, :32] * 2 - t[:, 32:])
        np.testing.assert_array_equal(b[16 * blk:16 * (blk + 1)], t[:, 32:] + t[:, :32])
        row = t[3] + t[-1] + t[2]
        np.testing.assert_array_equal(c[64 * blk:64 * (blk + 1)], row)
    z, t = on_interpreter(_blocks)
    np.testing.assert_array_equal(z, t[8:12, 8:16] + t[12:16, 8:16] + t[4:8, 0:8])


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assemble(compiler, __file__, CASES)
    assert all("extract" in t for t in texts)


@pytest.mark.gpu
def test_gpu_matches_interpreter(on_cuda: object) -> None:
    same(_halves(), on_interpreter(_halves))
    same(_blocks(), on_interpreter(_blocks))
    same(_joined(), on_interpreter(_joined))
