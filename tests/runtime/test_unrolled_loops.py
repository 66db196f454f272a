"""Loops over tuples, unrolled at compile time (frontend/unrolled.py): split K tiles against
weight tiles, tensors as items, zip in a helper, a return inside an unrolled loop inside a
range loop, a tile whose shape changes per copy. On the interpreter and, under `pytest -m gpu`,
on CUDA (the `backend` fixture), against NumPy; and lowered for sm_90 where tileiras is."""

from __future__ import annotations

import numpy as np
import pytest
import unrolled_kernels as k

import cutile as ct
from cutile import bf16, f32, i32

pytestmark = pytest.mark.usefixtures("backend")


def _bf16(a: np.ndarray) -> np.ndarray:
    return ct.from_numpy(a, dtype=bf16).numpy().astype(np.float64)


@pytest.mark.parametrize(("n", "width"), [(96, 1000), (64, 256), (40, 130)])
def test_normed_gemv_takes_k_tiles_from_a_split_row(n: int, width: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal((1, width)).astype(np.float32)
    w = rng.standard_normal((n, width)).astype(np.float32)
    kp = 1 << (width - 1).bit_length()
    y, *_ = k.normed_gemv(ct.zeros((1, n), f32).partition((1, 32)), ct.from_numpy(x),
                          ct.from_numpy(w, dtype=bf16), 1e-6, BK=min(128, kp), KP=kp).sync()
    xn = x / np.sqrt((x.astype(np.float64) ** 2).mean() + 1e-6)
    np.testing.assert_allclose(y.unpartition().numpy(), xn @ _bf16(w).T, rtol=1e-4, atol=1e-3)


def test_tensors_as_items_and_zip_in_a_helper() -> None:
    rng = np.random.default_rng(1)
    a, b, c, z = (rng.standard_normal((3, 64)).astype(np.float32) for _ in range(4))
    out, *_ = k.sum_of_three(ct.from_numpy(z).partition((1, 64)), ct.from_numpy(a),
                             ct.from_numpy(b), ct.from_numpy(c)).sync()
    np.testing.assert_allclose(out.unpartition().numpy(), 2 * (a + b + c) - z, rtol=1e-6,
                               atol=1e-6)


def test_a_return_inside_an_unrolled_loop_keeps_the_slab() -> None:
    rows, r = 6, 2
    flags = np.zeros((rows, r * 3), np.int32)
    flags[1, 0] = flags[2, 4] = flags[3, 5] = flags[4, 3] = 1
    z = np.arange(rows * 64, dtype=np.float32).reshape(rows, 64)
    out, *_ = k.stop_on_flag(ct.from_numpy(z).partition((1, 64)), ct.from_numpy(flags),
                             R=r).sync()
    want = z.copy()
    for row in range(rows):
        if not flags[row].any():
            want[row] = z[row] * (0.5 * 2.0 * 3.0) ** r
    np.testing.assert_allclose(out.unpartition().numpy(), want, rtol=1e-6)


def test_a_tile_may_change_shape_from_copy_to_copy() -> None:
    z = np.random.default_rng(2).standard_normal((3, 64)).astype(np.float32)
    out, *_ = k.tree_sum(ct.from_numpy(z).partition((1, 64))).sync()
    np.testing.assert_allclose(out.unpartition().numpy(),
                               np.repeat(z.sum(1, keepdims=True), 64, 1), rtol=1e-5, atol=1e-5)


def test_unrolled_kernels_lower_for_sm_90(toolchain: object, backend: str) -> None:
    if backend != "interpreter":
        pytest.skip("compiled once, on the interpreter's run")
    row = ct.meta((1, 2048), f32)
    c = k.normed_gemv.compile(ct.meta((1, 4096), f32).partition((1, 32)), row,
                              ct.meta((4096, 2048), bf16), 1e-6, BK=128, KP=2048)
    assert c.cubin and c.tileir.count("load") >= 16  # one weight tile load per K tile
    c = k.stop_on_flag.compile(ct.meta((4, 64), f32).partition((1, 64)),
                               ct.meta((4, 6), i32), R=2)
    assert c.cubin


@pytest.mark.parametrize(("b", "s"), [(16, 4), (8, 2), (32, 8)])
def test_a_tuple_whose_length_is_a_const_is_indexed(b: int, s: int) -> None:
    x = np.random.default_rng(b).standard_normal((5, 2 * b)).astype(np.float32)
    z, _ = k.split_by_const(ct.zeros((5, b), f32).partition((1, b)), ct.from_numpy(x),
                            S=s).sync()
    last = x[:, (s - 1) * (2 * b // s):][:, :1]
    want = x[:, :b] * (x * x).sum(1, keepdims=True) + last
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("e", "te", "tw"), [(20, 64, 32), (60, 64, 64), (100, 128, 128)])
def test_widths_chosen_by_const_conditions(e: int, te: int, tw: int) -> None:
    x = np.random.default_rng(e).standard_normal((3, e)).astype(np.float32)
    z, _ = k.row_sums_at_chosen_widths(ct.zeros((3, 4), f32).partition((1, 4)),
                                       ct.from_numpy(x)).sync()
    sums = x.sum(1)
    want = np.stack([sums, sums, np.full(3, te + tw), np.full(3, te + tw)], axis=1)
    np.testing.assert_allclose(z.unpartition().numpy(), want, rtol=1e-5, atol=1e-5)


def test_enumerate_of_zip_and_zip_of_enumerate() -> None:
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2))
    o, _, _ = k.weighted_pairs(ct.zeros((4, 1), f32).partition((4, 1)), ct.from_numpy(x),
                               ct.from_numpy(y)).sync()
    d = x - y
    want = (x * y * np.arange(4)).sum(1) + d[:, :2].sum(1) + 2 * d[:, 2:].sum(1)
    np.testing.assert_allclose(o.unpartition().numpy()[:, 0], want, rtol=1e-5, atol=1e-5)
