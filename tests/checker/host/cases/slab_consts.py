"""Kernels whose tile shapes come from Consts that a launch fixes (issue 26, item 4a): each checks
clean on its own, and a launch that sets `N = 100` (from a partition's tile shape, a tensor's
shape or a keyword) makes some of its tiles wrong. The runtime types the kernel again with the
values and raises; the checker, which knows those values from the host code here, reports the
same codes at the same lines in the kernel. Reading x over a slab of any extents
(`ct.load_tile_like`) is fine; a tile of the slab's own extents is not."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def rms(y: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")], w: Tensor[f32, ("N",)],
        N: Const[int]) -> None:
    t = ct.load_tile_like(x, y)
    scale = w.load_tile((N,), (0,))  # E: CT208
    y.store(t * ct.rsqrt(ct.sum(t * t, 1, keepdims=True) / N + 1e-6) * scale)


@ct.kernel
def rms_any(y: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")], w: Tensor[f32, ("N",)],
            N: Const[int]) -> None:
    t = ct.load_tile_like(x, y)
    scale = w.load_tile((y.tile_shape[1],), (0,))
    y.store(t * ct.rsqrt(ct.sum(t * t, 1, keepdims=True) / N + 1e-6) * scale)


@ct.kernel
def fill(z: Mut[Tensor[f32, ("BM", "BN")]], BM: Const[int], BN: Const[int]) -> None:
    z.store(ct.full(z.shape, 1.0, f32))  # E: CT208


@ct.kernel
def flatten(z: Mut[Tensor[f32, (1, "N")]], N: Const[int]) -> None:
    z.store(z.load().reshape((N,)).reshape(z.tile_shape) * 2.0)  # E: CT208


@ct.kernel
def window(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, ("N",)], N: Const[int]) -> None:
    p = x.partition((64,))
    total = ct.zeros((64,), f32)
    for k in range(4):
        total = total + p.load((k,))  # E: CT404
    z.store(total)


@ct.kernel
def rows(z: Mut[Tensor[f32, ("BM", "N")]], x: Tensor[f32, (-1, "N")], BM: Const[int],
         N: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t - ct.max(t, 1))  # E: CT201


def odd_width(n: int) -> None:
    """n is not known here: nothing to report, whatever a caller passes."""
    y = ct.zeros((4, n), f32).partition((1, n))
    y, _, _ = rms(y, ct.ones((4, n), f32), ct.ones((n,), f32)).sync()


x = ct.ones((4, 100), f32)
w = ct.ones((100,), f32)
rms_any(ct.zeros((4, 100), f32).partition((1, 100)), x, w).sync()  # any width
rms(ct.zeros((4, 128), f32).partition((1, 128)), ct.ones((4, 128), f32),
    ct.ones((128,), f32)).sync()
rms(ct.zeros((4, 100), f32).partition((1, 100)), x, w).sync()  # N from the partition: 100
fill(ct.zeros((8, 8), f32).partition((4, 4))).sync()
fill(ct.zeros((9, 8), f32).partition((3, 4))).sync()  # BM = 3
flatten(ct.zeros((2, 256), f32).partition((1, 256))).sync()
flatten(ct.zeros((2, 200), f32).partition((1, 200))).sync()
window(ct.zeros((64,), f32).partition((64,)), ct.ones((256,), f32)).sync()
window(ct.zeros((64,), f32).partition((64,)), ct.ones((192,), f32)).sync()  # 3 tiles: k = 3
rows(ct.zeros((8, 4), f32).partition((4, 4)), ct.ones((8, 4), f32)).sync()
rows(ct.zeros((8, 128), f32).partition((4, 128)), ct.ones((8, 128), f32)).sync()
