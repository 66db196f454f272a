"""`x.shape` of a read-only tensor inside a kernel: static extents are ints, dynamic ones i32
scalars read from the tensor (as Triton users pass `n_cols`, without an extra argument). Each
test runs on the interpreter and, under `pytest -m gpu`, on CUDA (the `backend` fixture)."""

import numpy as np
import pytest

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32

pytestmark = pytest.mark.usefixtures("backend")


@ct.kernel
def row_sums(z: Mut[Tensor[f32, (1,)]], x: Tensor[f32, (-1, -1)], B: Const[int]) -> None:
    r = z.tile_index()[0]
    n = x.shape[1]
    acc = ct.zeros((B,), f32)
    for j in range(ct.cdiv(n, B)):
        cols = j * B + ct.arange(B, i32)
        acc = acc + ct.where(cols < n, x.load_tile((1, B), (r, j)).reshape((B,)), 0.0)
    z.store(ct.sum(acc, 0, keepdims=True))


@ct.kernel
def extents(z: Mut[Tensor[i32, (4,)]], x: Tensor[f32, (-1, 8, "C")], C: Const[int]) -> None:
    a, b, c = x.shape
    lane = ct.arange(4, i32)
    z.store(ct.where(lane == 0, a, ct.where(lane == 1, b, ct.where(lane == 2, c, x.ndim))))


@pytest.mark.parametrize("cols", [1, 31, 32, 70, 1000])
def test_a_dynamic_extent_bounds_the_row_walk(cols: int) -> None:
    x = np.random.default_rng(cols).random((5, cols)).astype(np.float32)
    z = ct.zeros((5,), f32).partition((1,))
    z, _ = row_sums(z, ct.from_numpy(x), B=32).sync()
    np.testing.assert_allclose(z.unpartition().numpy(), x.sum(1), rtol=1e-5)


def test_static_dynamic_and_const_extents() -> None:
    z = ct.zeros((4,), i32).partition((4,))
    z, _ = extents(z, ct.zeros((3, 8, 2), f32)).sync()
    assert z.unpartition().numpy().tolist() == [3, 8, 2, 3]
