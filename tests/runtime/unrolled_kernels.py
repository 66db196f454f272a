"""Kernels with loops over tuples (unrolled at compile time): test_unrolled_loops.py."""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32


@ct.kernel
def normed_gemv(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                w: Tensor[bf16, (-1, -1)], eps: f32, BN: Const[int], BK: Const[int],
                KP: Const[int]):
    """y = RMSNorm(x) @ W^T: the normalized row stays in registers, its K tiles taken by
    ct.split (k is a compile-time int), each against its weight tile."""
    _, j = y.tile_index()
    row = x.load_tile((1, KP), (0, 0))
    row = row * ct.rsqrt(ct.sum(row * row) / x.shape[1].astype(f32) + eps)
    pw = w.partition((BN, BK))
    acc = ct.zeros((BN, BK), f32)
    for k, xk in enumerate(ct.split(row, KP // BK, axis=1)):
        acc = acc + pw.load((j, k)).astype(f32) * xk
    y.store(ct.sum(acc, 1).reshape((1, BN)))


@ct.function
def mix(tiles, weights):
    out = ct.zeros((1, 64), f32)
    for t, wgt in zip(tiles, weights, strict=True):
        out = out + t * wgt
    return out


@ct.kernel
def sum_of_three(z: Mut[Tensor[f32, (1, 64)]], a: Tensor[f32, (-1, -1)],
                 b: Tensor[f32, (-1, -1)], c: Tensor[f32, (-1, -1)]):
    """Tensors as the items; a helper zips two tuples."""
    t = ct.zeros((1, 64), f32)
    for src in (a, b, c):
        t = t + ct.load_tile_like(src, z)
    z.store(mix((t, z.load()), (2.0, -1.0)))


@ct.kernel
def stop_on_flag(z: Mut[Tensor[f32, (1, 64)]], flags: Tensor[i32, (-1, -1)], R: Const[int]):
    """A return inside an unrolled loop inside a range loop: the slab keeps its old contents."""
    (r, _) = z.tile_index()
    t = z.load()
    for i in range(R):
        for j, s in enumerate((0.5, 2.0, 3.0)):
            if flags.load_tile((1, 1), (r, i * 3 + j)).reshape(()) == 1:
                return
            t = t * s
    z.store(t)


@ct.kernel
def tree_sum(z: Mut[Tensor[f32, (1, 64)]]):
    """A tile that halves every iteration (its type changes: each copy has its own): the sum
    of the row by pairs, broadcast back."""
    t = z.load()
    for width in (32, 16, 8, 4, 2, 1):
        lo, hi = ct.split(t[:, 0:2 * width], 2, axis=1)
        t = lo + hi
    z.store(ct.broadcast_to(t, (1, 64)))
