"""The NumPy interpreter against NumPy: padding, masking, orders, persistence, dtypes."""

from __future__ import annotations

import numpy as np
import pytest
import rt_kernels as k

import cutile as ct
from cutile import f16, f32, i32
from cutile.compiler.tiling import Tiling, tile_coords
from cutile.runtime import floats


def test_add_with_a_ragged_last_tile() -> None:
    x, y = ct.rand((1000,), f32, seed=1), ct.rand((1000,), f32, seed=2)
    z, x, y = k.add(ct.full((1000,), -7.0, f32).partition((128,)), x, y).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), x.numpy() + y.numpy())


def test_stores_outside_the_tensor_are_masked() -> None:
    arr = np.full(80, -1.0, np.float32)
    base = ct.from_dlpack(arr)
    view = ct.from_dlpack(arr[:50])  # 50 elements of a larger buffer, tile 64
    (z,) = k.inc(view.partition((64,))).sync()
    assert (arr[:50] == 0.0).all() and (arr[50:] == -1.0).all()  # nothing past element 49
    assert base.numpy()[60] == -1.0 and z.unpartition().numpy().shape == (50,)


def test_matmul_f16_accumulates_in_f32() -> None:
    a, b = ct.randn((100, 70), f16, seed=3), ct.randn((70, 90), f16, seed=4)
    c, a, b = k.matmul(ct.zeros((100, 90), f32).partition((32, 32)), a, b, BK=16).sync()
    ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    np.testing.assert_allclose(c.unpartition().numpy(), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("order", [ct.row_major, ct.col_major, ct.grouped(2), ct.grouped(3)])
def test_orders_are_bijections(order: ct.TileOrder) -> None:
    grid = (5, 4)
    seen = {tile_coords(grid, order, i) for i in range(20)}
    assert seen == {(i, j) for i in range(5) for j in range(4)}
    (z,) = k.where_tile(ct.zeros((80, 32), i32).partition((16, 8), order=order)).sync()
    out = z.unpartition().numpy()
    assert out[16 * 3, 8 * 2] == 302 and out[79, 31] == 403


def test_grouped_order_walks_columns_within_a_group() -> None:
    g = ct.grouped(2)
    assert [tile_coords((4, 3), g, i) for i in range(6)] == [
        (0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]


def test_grouped_batch_axes_vary_slowest() -> None:
    g = ct.grouped(2)
    assert [tile_coords((2, 4, 3), g, i) for i in (0, 1, 2, 11, 12, 13)] == [
        (0, 0, 0), (0, 1, 0), (0, 0, 1), (0, 3, 2), (1, 0, 0), (1, 1, 0)]


def test_launch_grid_comes_from_the_tiling() -> None:
    z = ct.zeros((80, 32), i32)
    assert z.partition((16, 8)).launch_grid == (5, 4, 1)
    p = ct.zeros((80, 32), i32).partition((16, 8), order=ct.col_major)
    assert p.launch_grid == (20, 1, 1) == Tiling((5, 4), ct.col_major).grid()
    assert ct.zeros((80, 32), i32).partition((16, 8), blocks=3).launch_grid == (3, 1, 1)


def test_persistent_partition_visits_each_tile_once() -> None:
    x = ct.arange(200, f32)
    z, x = k.persistent_copy(ct.zeros((200,), f32).partition((16,), blocks=3), x).sync()
    np.testing.assert_array_equal(z.unpartition().numpy(), np.arange(200) + 1)


def test_f16_and_bf16_rounding() -> None:
    x = ct.from_numpy(np.array([1 / 3, 1e-8, 70000.0, 1.00390625], np.float32))
    z, w, x = k.to_half(ct.zeros((4,), f16).partition((4,)),
                        ct.zeros((4,), ct.bf16).partition((4,)), x).sync()
    src = x.numpy()
    with np.errstate(over="ignore"):  # 70000 overflows f16 to inf, as on the device
        np.testing.assert_array_equal(z.unpartition().numpy(), src.astype(np.float16))
    np.testing.assert_array_equal(w.unpartition().numpy(), floats.round_bf16(src))


def test_reduction_with_block_ids() -> None:
    x = ct.randn((40, 64), f32, seed=5)
    z, x = k.rowsum(ct.zeros((40, 1), f32).partition((8, 1)), x).sync()
    np.testing.assert_allclose(z.unpartition().numpy()[:, 0], x.numpy().sum(1), rtol=1e-5)


def test_examples_quick_start_runs() -> None:
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    runpy.run_path(str(root / "examples" / "add.py"), run_name="__main__")
