"""Reductions without `axis`: ct.sum/prod/max/min/xor_sum/argmax/argmin of a whole tile give a
0-d tile (with keepdims=True, all ones), and the 0-d result works wherever a scalar tile does:
arithmetic with tiles, stores through broadcasting, comparisons, `if` conditions, loop bounds,
printf, an accumulator. The interpreter against NumPy, lowering and assembly, and (with -m gpu)
CUDA against the interpreter."""

from typing import Any

import numpy as np
import pytest
from opcheck import assembled, host, on_interpreter

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f16, f32, i32, u32
from cutile.compiler.toolchain import KernelCompiler


@ct.kernel
def whole(s: Mut[Tensor[f32, (8,)]], idx: Mut[Tensor[i32, (8,)]], k: Mut[Tensor[f32, (2, 4)]],
          x: Tensor[f32, (-1, -1, -1)], h: Tensor[f16, (-1, -1)], v: Tensor[u32, (-1,)]) -> None:
    """Each whole-tile reduction once; rank 3, rank 2 (f16 sums in f32), rank 1, rank 0."""
    t = x.load_tile((2, 4, 8), (0, 0, 0))
    th = h.load_tile((16, 16), (0, 0))
    r = ct.full((8,), 0.0, f32)
    r = ct.where(ct.arange(8) == 0, ct.sum(t), r)
    r = ct.where(ct.arange(8) == 1, ct.prod(t[0, 0]), r)
    r = ct.where(ct.arange(8) == 2, ct.max(t), r)
    r = ct.where(ct.arange(8) == 3, ct.min(t, None), r)
    r = ct.where(ct.arange(8) == 4, ct.sum(th).astype(f32), r)
    r = ct.where(ct.arange(8) == 5, ct.sum(ct.full((), 2.5, f32)), r)  # 0-d: itself
    r = ct.where(ct.arange(8) == 6, ct.max(t, keepdims=True).reshape(()), r)
    r = ct.where(ct.arange(8) == 7, ct.sum(t, axis=None, keepdims=True).reshape(()), r)
    s.store(r)
    n = ct.full((8,), 0, i32)
    n = ct.where(ct.arange(8) == 0, ct.argmax(t), n)
    n = ct.where(ct.arange(8) == 1, ct.argmin(t), n)
    n = ct.where(ct.arange(8) == 2, ct.argmax(th), n)
    n = ct.where(ct.arange(8) == 3, ct.argmin(t, keepdims=True).reshape(()), n)
    n = ct.where(ct.arange(8) == 4, ct.xor_sum(v.load_tile((64,), (0,))).astype(i32), n)
    n = ct.where(ct.arange(8) == 5, ct.max(ct.arange(64) * 3 % 50), n)
    n = ct.where(ct.arange(8) == 6, ct.sum(ct.arange(64)), n)
    n = ct.where(ct.arange(8) == 7, ct.argmax(ct.full((), 1.0, f32)), n)
    idx.store(n)
    both = ct.sum(t, keepdims=True).reshape((1, 1)) + ct.min(t, keepdims=True)[0]
    k.store(ct.broadcast_to(both, (2, 4)))


@ct.kernel
def scalar_uses(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[i32, (4,)]], x: Tensor[f32, (-1,)],
                c: Tensor[i32, (-1,)]) -> None:
    """A 0-d reduction as a scalar: arithmetic, broadcast store, comparison, `if`, a loop bound,
    a while condition and printf."""
    t = ct.load_tile_like(x, z)
    total = ct.sum(t)
    centered = t - total / 64.0
    if ct.max(t) > 0.0:
        centered = centered * 2.0
    count = ct.sum(ct.load_tile_like(c, w))
    steps = ct.full((), 0, i32)
    for _ in range(count):
        steps += 1
    left = ct.max(ct.load_tile_like(c, w))
    while left > 0:
        left -= 1
        steps += 10
    ct.printf("total %f count %d\n", total, count)
    z.store(centered + ct.min(t))
    w.store(ct.full((4,), 0, i32) + steps + ct.argmax(t))


@ct.kernel
def global_sum(total: Acc[Tensor[f32, (1,)], "add"], x: Tensor[f32, (-1,)],
               B: Const[int]) -> None:
    """The usual global reduction: each block sums its tile and accumulates one number."""
    total.add_at((0,), ct.sum(x.load_tile((B,), (ct.block_id(0),))))


CASES = [("whole", {}), ("scalar_uses", {}), ("global_sum", {"B": 256})]
RNG = np.random.default_rng(11)
X3 = RNG.standard_normal((2, 4, 8)).astype(np.float32)
H = (RNG.standard_normal((16, 16)) * 4).astype(np.float16)
V = RNG.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)


def _whole() -> list[np.ndarray]:
    outs = [ct.zeros((8,), f32).partition((8,)), ct.zeros((8,), i32).partition((8,)),
            ct.zeros((2, 4), f32).partition((2, 4))]
    return [np.asarray(a) for a in host(whole(*outs, ct.from_numpy(X3), ct.from_numpy(H),
                                              ct.from_numpy(V)).sync())[:3]]


def test_whole_tile_reductions_match_numpy() -> None:
    s, idx, k = on_interpreter(_whole)
    wide = H.astype(np.float32)
    half = np.float16(wide.sum())  # f16 sums in f32, rounds once at the end
    want = [X3.sum(), np.prod(X3[0, 0]), X3.max(), X3.min(), half, 2.5, X3.max(), X3.sum()]
    np.testing.assert_allclose(s, np.float32(want), rtol=1e-5)
    ar = np.arange(64)
    want_i = [X3.argmax(), X3.argmin(), H.argmax(), X3.argmin(),
              np.bitwise_xor.reduce(V).astype(np.int32), (ar * 3 % 50).max(), ar.sum(), 0]
    np.testing.assert_array_equal(idx, want_i)
    np.testing.assert_allclose(k, np.full((2, 4), X3.sum() + X3.min()), rtol=1e-5)


X = RNG.standard_normal(64).astype(np.float32)
C = np.array([3, 0, 2, 1], np.int32)


def _scalar_uses() -> list[np.ndarray]:
    outs = [ct.zeros((64,), f32).partition((64,)), ct.zeros((4,), i32).partition((4,))]
    return [np.asarray(a) for a in host(scalar_uses(*outs, ct.from_numpy(X),
                                                    ct.from_numpy(C)).sync())[:2]]


def test_zero_d_results_work_as_scalars(capfd: pytest.CaptureFixture[str]) -> None:
    z, w = on_interpreter(_scalar_uses)
    total = X.sum(dtype=np.float32)
    centered = X - total / np.float32(64)
    if X.max() > 0:
        centered = centered * 2
    np.testing.assert_allclose(z, centered + X.min(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w, np.full(4, C.sum() + 10 * C.max() + X.argmax()))
    assert f"count {C.sum()}" in capfd.readouterr().out


def _global_sum() -> list[np.ndarray]:
    x = RNG.standard_normal(1000).astype(np.float32)
    out = host(global_sum(ct.zeros((1,), f32), ct.from_numpy(x), B=256, grid=4).sync())
    return [np.asarray(out[0]), x]


def test_global_sum_through_an_accumulator() -> None:
    total, x = on_interpreter(_global_sum)
    np.testing.assert_allclose(total, [x.sum()], rtol=1e-5)  # padding past 1000 reads 0


def test_lowers_and_assembles(compiler: KernelCompiler) -> None:
    texts = assembled(compiler, __file__, CASES)
    # a whole-tile reduction is one reduce over the tile reshaped to one axis
    assert "tile<2x4x8xf32> -> tile<64xf32>" in texts["whole"]
    assert "reduce" in texts["whole"] and "xori" in texts["whole"]
    assert "atomic_rmw_tko" in texts["global_sum"]


@pytest.mark.gpu
@pytest.mark.parametrize("launch", [_whole, _scalar_uses], ids=["whole", "scalar_uses"])
def test_gpu_matches_interpreter(on_cuda: object, launch: Any) -> None:
    for got, want in zip(launch(), on_interpreter(launch), strict=True):
        if np.asarray(want).dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
def test_gpu_global_sum(on_cuda: object) -> None:
    total, x = _global_sum()
    np.testing.assert_allclose(total, [x.sum()], rtol=1e-4)
