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


@ct.function
def first_half(t, n):
    return t[:, 0:n]


@ct.function
def item(parts, i):
    return parts[i]


# a tuple whose length is a Const (S parts of a row whose width is one): indexed directly, in a
# helper and by an unrolled loop's index, next to the loop's own items
@ct.kernel
def split_by_const(z: Mut[Tensor[f32, (1, "B")]], x: Tensor[f32, (-1, -1)], B: Const[int],
                   S: Const[int]):
    row = x.load_tile((1, 2 * B), (z.tile_index()[0], 0))
    parts = ct.split(row, S, axis=1)
    acc = ct.zeros((1, 1), f32)
    for j, p in enumerate(ct.split(row, S, axis=1)):
        acc = acc + ct.sum(p * parts[j], 1, keepdims=True)
    z.store(first_half(row, B) * acc + item(parts, S - 1)[:, 0:1])


# widths chosen by Const conditions (an expression, an if/elif chain): numbers known once E is
@ct.kernel
def row_sums_at_chosen_widths(z: Mut[Tensor[f32, (1, 4)]], x: Tensor[f32, (-1, "E")],
                              E: Const[int]):
    TE = 64 if E <= 64 else 128
    if E <= 32:
        TW = 32
    elif E <= 64:
        TW = 64
    else:
        TW = 128
    r = z.tile_index()[0]
    a = ct.sum(x.load_tile((1, TE), (r, 0)), 1, keepdims=True)
    b = ct.sum(x.load_tile((1, TW), (r, 0)), 1, keepdims=True)
    z.store(ct.cat((ct.cat((a, b), axis=1), ct.full((1, 2), TE + TW, f32)), axis=1))


# enumerate over zip (and zip over enumerate): the index and both items of each copy
@ct.kernel
def weighted_pairs(o: Mut[Tensor[f32, (4, 1)]], x: Tensor[f32, (4, 4)], y: Tensor[f32, (4, 4)]):
    a = x.load_tile((4, 4), (0, 0))
    b = y.load_tile((4, 4), (0, 0))
    acc = ct.zeros((4, 1), f32)
    for j, (xa, yb) in enumerate(zip(ct.split(a, 4, axis=1), ct.split(b, 4, axis=1),
                                      strict=True)):
        acc = acc + xa * yb * j
    for (i, xa), yb in zip(enumerate(ct.split(a, 2, axis=1), start=1), ct.split(b, 2, axis=1),
                           strict=True):
        acc = acc + ct.sum(xa - yb, 1, keepdims=True) * i
    o.store(acc)
