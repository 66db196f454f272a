"""Slabs larger than a tile: any extents, z.shape / z.tile_shape, tiles inside the slab."""
import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def whole(z: Mut[Tensor[f32, (3, 100)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = z.load()  # a (4, 128) tile, padded past the slab
    z.store(t * 2.0)
    z.store(ct.zeros(z.tile_shape, f32))
    z.store(1.0)
    z.store(ct.zeros((3, 100), f32))  # E: CT208
    z.store(ct.zeros((4, 64), f32))  # E: CT213 "z.tile_shape of the slab (3, 100)"
    a, b = z.shape
    z.store(ct.full((4, 128), a * b, f32))


@ct.kernel
def walk(z: Mut[Tensor[f32, (1, -1)]], x: Tensor[f32, (-1, -1)], BN: Const[int]) -> None:
    row = z.tile_index()[0]
    for j in range(ct.cdiv(z.shape[1], BN)):
        t = x.load_tile((1, BN), (row, j))
        z.store(t, (0, j))
        u = z.load((1, BN), (0, j), padding=0.0)
    z.store(ct.zeros((1, 64), f32))  # E: CT215 "store(t, index)"
    v = z.load()  # E: CT215 "load(shape, index)"
    w = z.tile_shape  # E: CT215
    y = ct.load_tile_like(x, z)  # E: CT215
    z.store(ct.zeros((1, 64), f32).astype(i32), (0, 0))  # E: CT213 "astype(f32)"
    z.store(ct.zeros((64,), f32), (0, 0))  # E: CT213 "rank 2"
    z.store(0.0, (0, 1))  # E: CT407 "a number has no tile shape"
    z.store(ct.zeros((1, 64), f32), (0,))  # E: CT203
    k = ct.cdiv(1.5, 2)  # E: CT211


@ct.kernel
def tiles_loop(z: Mut[Tensor[f32, (3, 3)]], x: Tensor[f32, (-1, -1)]) -> None:
    for zt in z.tiles():
        n = zt.shape[0] * zt.shape[1]
        zt.store(ct.full((2, 2), 1.0, f32), (1, 1))
        t = zt.load((2, 2), (0, 1))
        zt.store(t, (0, 0))
        zt.store(ct.zeros((4, 4), f32))
        y = ct.load_tile_like(x, zt)  # x over the 3x3 slab: a 4x4 tile
        zt.store(y + zt.load())
