"""Slabs larger than a tile (design.md §3): any extents, dynamic extents, tiles inside the slab,
masked and padded at the slab's edge whatever the index. Runs on the interpreter, and on CUDA
under `pytest -m gpu` (the same kernels, the same expected arrays)."""

from __future__ import annotations

import numpy as np
import pytest
import slab_kernels as k
from rt_util import slab_boxes
from test_gpu import _gpu_backend

import cutile as ct
from cutile import f32, i32
from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend

I32_MIN, I32_MAX = -2**31, 2**31 - 1


def test_whole_slab_store_is_clipped_to_the_slab(backend: str) -> None:
    z = ct.zeros((7, 12), f32).partition((3, 5))
    z, _ = k.copy_whole(z, ct.ones((4, 8), f32)).sync()
    want = np.zeros((7, 12), np.float32)
    for rows, cols in slab_boxes((7, 12), (3, 5)):
        want[rows, cols] = 1 + (rows.start // 3) * 100 + cols.start // 5
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


def test_shape_and_tile_shape(backend: str) -> None:
    z = ct.zeros((7, 12), f32).partition((3, 5))
    w = ct.zeros((3, 3), i32).partition((1, 1))  # same grid, other slab shape
    z, w = k.shape_of(z, w).sync()
    np.testing.assert_array_equal(w.unpartition().numpy(), np.full((3, 3), 3548))


def test_grids_must_agree_not_shapes() -> None:
    z = ct.zeros((7, 12), f32).partition((3, 5))
    w = ct.zeros((1, 3), i32).partition((1, 1))
    with pytest.raises(ct.LaunchError) as err:
        k.shape_of(z, w)
    assert err.value.diagnostics[0].code == "CT402"


@pytest.mark.parametrize("width", [40, 16, 7])
def test_dynamic_extent_is_clipped_at_the_tensor_edge(backend: str, width: int) -> None:
    z = ct.zeros((3, 50), i32).partition((1, width))
    (z,) = k.dynamic_extent(z).sync()
    want = np.zeros((3, 50), np.int32)
    for c in range(0, 50, width):
        want[:, c:c + width] = min(width, 50 - c)
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


def test_whole_slab_load_pads_past_the_slab_even_inside_the_tensor(backend: str) -> None:
    xa = np.arange(35, dtype=np.float32).reshape(5, 7)
    z = ct.from_numpy(xa).partition((2, 6))
    o = ct.zeros((5, 2), f32).partition((2, 1))
    z, o = k.row_sum_whole(z, o).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), 2 * xa)
    want = np.stack([xa[:, :6].sum(1), xa[:, 6]], axis=1)
    np.testing.assert_array_equal(o.unpartition().numpy(), want)


INDICES = [(0, 0), (1, 1), (1, 0), (0, 1), (-1, 0), (0, -1), (2, 0), (0, 2), (5, 7),
           (I32_MAX, 0), (0, I32_MAX), (I32_MIN, I32_MIN), (I32_MAX, I32_MAX)]


def _poke_expected(where: tuple[int, int], tile: tuple[int, int] = (2, 4)) -> np.ndarray:
    """Ones where a tile at tile index `where` of each 4x6 slab lands inside that slab."""
    want = np.zeros((10, 13), np.float32)
    i, j = where
    h, w = tile
    for rows, cols in slab_boxes((10, 13), (4, 6)):
        r0, c0 = rows.start + h * i, cols.start + w * j
        r = slice(max(r0, rows.start), min(r0 + h, rows.stop))
        c = slice(max(c0, cols.start), min(c0 + w, cols.stop))
        if r.start < r.stop and c.start < c.stop:
            want[r, c] = 1
    return want


@pytest.mark.parametrize("where", INDICES)
def test_no_index_writes_outside_the_slab(backend: str, where: tuple[int, int]) -> None:
    z = ct.zeros((10, 13), f32).partition((4, 6))
    z, _ = k.poke(z, ct.from_numpy(np.array(where, np.int32))).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), _poke_expected(where))


@pytest.mark.parametrize("where", INDICES)
def test_no_aligned_index_writes_outside_the_slab(backend: str, where: tuple[int, int]) -> None:
    z = ct.zeros((10, 13), f32).partition((4, 6))
    z, _ = k.poke_aligned(z, ct.from_numpy(np.array(where, np.int32))).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), _poke_expected(where, (2, 2)))


def test_aligned_walk_labels_every_tile_of_every_slab(backend: str) -> None:
    (z,) = k.aligned_walk(ct.zeros((5, 200), f32).partition((2, 64))).sync()
    want = np.zeros((5, 200), np.float32)
    for rows, cols in slab_boxes((5, 200), (2, 64)):
        a, b = rows.start // 2, cols.start // 64
        for r in range(rows.stop - rows.start):
            for j in range(2):
                c = slice(cols.start + 32 * j, min(cols.start + 32 * j + 32, cols.stop))
                want[rows.start + r, c] = a * 1000 + b * 100 + r * 10 + j
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.parametrize("where", INDICES)
def test_no_index_reads_outside_the_slab(backend: str, where: tuple[int, int]) -> None:
    xa = np.arange(130, dtype=np.float32).reshape(10, 13) + 1
    z = ct.from_numpy(xa).partition((4, 6))
    z, _ = k.peek(z, ct.from_numpy(np.array(where, np.int32))).sync()
    want = xa.copy()
    i, j = where
    for rows, cols in slab_boxes((10, 13), (4, 6)):
        tile = np.full((2, 4), -1.0, np.float32)
        for a in range(2):
            for b in range(4):
                r, c = rows.start + 2 * i + a, cols.start + 4 * j + b
                if rows.start <= r < rows.stop and cols.start <= c < cols.stop:
                    tile[a, b] = xa[r, c]
        h, w = min(2, rows.stop - rows.start), min(4, cols.stop - cols.start)
        want[rows.start:rows.start + h, cols.start:cols.start + w] = tile[:h, :w]
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.parametrize("n", [1000, 256, 5])
def test_row_walk_softmax(backend: str, n: int) -> None:
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32) * 4
    o = ct.zeros((3, n), f32).partition((1, n))
    o, _ = k.softmax_rows(o, ct.from_numpy(x), BN=256).sync()
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(o.unpartition().numpy(), e / e.sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("blocks", [1, 2, 5])
def test_persistent_slabs_with_tiles_inside(backend: str, blocks: int) -> None:
    z = ct.zeros((7, 8), f32).partition((3, 3), blocks=blocks)
    (z,) = k.persistent_fill(z).sync()
    want = np.zeros((7, 8), np.float32)
    for rows, cols in slab_boxes((7, 8), (3, 3)):
        want[rows, cols] = (rows.start // 3) * 10 + cols.start // 3
    np.testing.assert_array_equal(z.unpartition().numpy(), want)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [32000, 1000])
def test_cuda_matches_the_interpreter(n: int) -> None:
    """The same row-walk softmax and edge pokes on CUDA and on the interpreter, element for
    element (the softmax within rounding: exp2 and the sums' order may differ)."""
    be = _gpu_backend()
    if be is None:
        pytest.skip("no CUDA device")
    x = np.random.default_rng(n).standard_normal((4, n)).astype(np.float32)
    where = np.array([1, 2], np.int32)

    def run() -> tuple[np.ndarray, np.ndarray]:
        o = ct.zeros((4, n), f32).partition((1, n))
        o, _ = k.softmax_rows(o, ct.from_numpy(x), BN=1024).sync()
        z = ct.zeros((10, 13), f32).partition((4, 6))
        z, _ = k.poke(z, ct.from_numpy(where)).sync()
        return o.unpartition().numpy(), z.unpartition().numpy()

    old = context.set_backend(be)
    try:
        cuda = run()
    finally:
        context.set_backend(InterpreterBackend())
    try:
        interp = run()
    finally:
        context.set_backend(old)
    np.testing.assert_allclose(cuda[0], interp[0], rtol=1e-5, atol=1e-8)
    np.testing.assert_array_equal(cuda[1], interp[1])


def test_rank5_partition_folds_its_grid_and_labels_every_slab(backend: str) -> None:
    shape, slab = (2, 4, 3, 4, 8), (1, 2, 1, 2, 4)
    z = ct.zeros(shape, f32).partition(slab)
    assert z.grid == (2, 2, 3, 2, 2)
    (z,) = k.label5(z).sync()
    idx = np.indices(shape)
    want = sum(idx[a] // slab[a] * 10 ** (4 - a) for a in range(5)).astype(np.float32)
    np.testing.assert_array_equal(z.unpartition().numpy(), want)
