"""Kernels with slabs larger than a tile (design.md §3), shared by the interpreter and GPU tests."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32

LOG2E = 1.4426950408889634


@ct.kernel
def copy_whole(z: Mut[Tensor[f32, (3, 5)]], x: Tensor[f32, (-1, -1)]) -> None:
    # A 3x5 slab moves as one 4x8 tile; the padding is masked at the slab's edge.
    i, j = z.tile_index()
    t = x.load_tile((4, 8), (0, 0))  # any data: the slab must clip it
    z.store(t + (i * 100 + j).astype(f32))


@ct.kernel
def shape_of(z: Mut[Tensor[f32, (3, 5)]], w: Mut[Tensor[i32, (1, 1)]]) -> None:
    a, b = z.shape
    c, d = z.tile_shape
    w.store(ct.full((1, 1), a * 1000 + b * 100 + c * 10 + d, i32))


@ct.kernel
def dynamic_extent(z: Mut[Tensor[i32, (1, -1)]]) -> None:
    # The slab's width arrives at launch; at the tensor's edge it is clipped.
    n = z.shape[1]
    for j in range(ct.cdiv(n, 16)):
        z.store(ct.full((1, 16), n, i32), (0, j))


@ct.kernel
def row_sum_whole(z: Mut[Tensor[f32, (2, 6)]], out: Mut[Tensor[f32, (2, 1)]]) -> None:
    t = z.load()  # (2, 8): the two columns past the slab read the padding, 0
    out.store(ct.sum(t, 1, keepdims=True))
    z.store(t * 2.0)


@ct.kernel
def poke(z: Mut[Tensor[f32, (4, 6)]], where: Tensor[i32, (2,)]) -> None:
    # Writes a 2x4 tile of ones at an arbitrary tile index: only the part inside the slab lands.
    p = where.load_tile((2,), (0,))
    i, j = p[0:1].reshape(()), p[1:2].reshape(())
    z.store(ct.full((2, 4), 1.0, f32), (i, j))


@ct.kernel
def poke_aligned(z: Mut[Tensor[f32, (4, 6)]], where: Tensor[i32, (2,)]) -> None:
    # A 2x2 tile divides the 4x6 slab: the tensor's own partition view, an in-slab check.
    p = where.load_tile((2,), (0,))
    i, j = p[0:1].reshape(()), p[1:2].reshape(())
    z.store(ct.full((2, 2), 1.0, f32), (i, j))


@ct.kernel
def aligned_walk(z: Mut[Tensor[f32, (2, 64)]]) -> None:
    # Walks every 1x32 tile of a 2x64 slab (clipped at the tensor's edge) and labels it.
    a, b = z.tile_index()
    for r in range(z.shape[0]):
        for j in range(2):
            z.store(ct.full((1, 32), a * 1000 + b * 100 + r * 10 + j, i32).astype(f32), (r, j))


@ct.kernel
def peek(z: Mut[Tensor[f32, (4, 6)]], where: Tensor[i32, (2,)]) -> None:
    # Reads a 2x4 tile at an arbitrary index (padding -1 outside the slab), stores it at (0, 0).
    p = where.load_tile((2,), (0,))
    i, j = p[0:1].reshape(()), p[1:2].reshape(())
    t = z.load((2, 4), (i, j), padding=-1.0)
    z.store(t, (0, 0))


@ct.kernel
def softmax_rows(out: Mut[Tensor[f32, (1, -1)]], x: Tensor[f32, (-1, -1)],
                 BN: Const[int]) -> None:
    # One block per row; the row is walked in BN-wide tiles twice (max and sum, then write).
    row = out.tile_index()[0]
    n = out.shape[1]
    tiles = ct.cdiv(n, BN)
    top = ct.full((1, BN), -1e30, f32)
    for j in range(tiles):
        top = ct.maximum(top, x.load_tile((1, BN), (row, j), padding=-1e30))
    m = ct.max(top, 1, keepdims=True) * LOG2E
    acc = ct.zeros((1, BN), f32)
    for j in range(tiles):
        acc = acc + ct.exp2(x.load_tile((1, BN), (row, j), padding=-1e30) * LOG2E - m)
    inv = 1.0 / ct.sum(acc, 1, keepdims=True)
    for j in range(tiles):
        e = ct.exp2(x.load_tile((1, BN), (row, j), padding=-1e30) * LOG2E - m)
        out.store(e * inv, (0, j))


@ct.kernel
def persistent_fill(z: Mut[Tensor[f32, (3, 3)]]) -> None:
    for zt in z.tiles():
        i, j = zt.tile_index()
        for a in range(2):
            for b in range(2):
                zt.store(ct.full((2, 2), 1.0, f32) * (i * 10 + j).astype(f32), (a, b))


@ct.kernel
def label5(z: Mut[Tensor[f32, (1, 2, 1, 2, 4)]]) -> None:
    # Rank 5: the grid folds axes 2..4 into its third axis; tile_index gives all five.
    a, b, c, d, e = z.tile_index()
    z.store(ct.full((1, 2, 1, 2, 4), a * 10000 + b * 1000 + c * 100 + d * 10 + e, i32)
            .astype(f32))
