"""Reading a tensor over a Mut slab of any extents: `ct.load_tile_like(x, z)` is one tile of
`z.tile_shape` (the slab rounded up to powers of two), padded past the slab and past x. Shapes
taken from the slab's own extents are not tile shapes."""
import math

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f16, f32


@ct.kernel
def rows(z: Mut[Tensor[f32, (3, 100)]], x: Tensor[f32, (-1, -1)], h: Tensor[f16, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)  # a (4, 128) tile
    z.store(t + ct.zeros(z.tile_shape, f32))
    z.store(t + ct.zeros((4, 64), f32))  # E: CT201 "(4, 128) and (4, 64)"
    u = ct.load_tile_like(x, z, padding=-math.inf, latency=4)
    v = ct.load_tile_like(x, z, padding=1.5, allow_tma=False)
    z.store(ct.maximum(u, v) + ct.load_tile_like(z, z))
    w = ct.load_tile_like(h, z)  # x's dtype: f16
    z.store(w)  # E: CT213 "astype(f32)"
    z.store(w.astype(f32))
    z.store(ct.load_tile_like(x, z, padding=math.inf).reshape((512,)).reshape((4, 128)))


@ct.kernel
def ranks(a: Mut[Tensor[f32, (1000,)]], b: Mut[Tensor[f32, (1, 1, 80)]],
          c: Mut[Tensor[f32, (1, 2, 3, 5, 6)]], x1: Tensor[f32, (-1,)],
          x3: Tensor[f32, (-1, -1, -1)], x5: Tensor[f32, (-1, -1, -1, -1, -1)]) -> None:
    a.store(ct.load_tile_like(x1, a) * 2.0)  # (1024,)
    b.store(ct.load_tile_like(x3, b) + ct.zeros((1, 1, 128), f32))
    c.store(ct.load_tile_like(x5, c) + ct.zeros((1, 2, 4, 8, 8), f32))
    c.store(ct.load_tile_like(x3, c))  # E: CT203 "rank 3"


@ct.kernel
def persistent(z: Mut[Tensor[f32, (20, 30)]], x: Tensor[f32, (-1, -1)]) -> None:
    for zt in z.tiles():
        t = ct.load_tile_like(x, zt) + zt.load()  # (32, 32) each
        zt.store(t)
        zt.store(ct.load_tile_like(x, zt) + ct.zeros((20, 30), f32))  # E: CT208 "30"


@ct.kernel
def named(z: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")], N: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))  # N = 100 at a launch: a (1, 128) tile


@ct.kernel
def dynamic(z: Mut[Tensor[f32, (1, -1)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)  # E: CT215 "load(shape, index)"


@ct.kernel
def not_tiles(z: Mut[Tensor[f32, (3, 100)]], x: Tensor[f32, (-1, -1)],
              acc: Acc[Tensor[f32, (-1, -1)], "add"]) -> None:
    z.store(ct.full(z.shape, 1.0, f32))  # E: CT208 "100"
    z.store(x.load_tile(z.shape, (0, 0)))  # E: CT208 "3 in shape (3, 100)"
    p = x.partition(z.shape)  # E: CT208
    r = z.load().reshape((300,))  # E: CT208 "300"
    z.store(x.load_tile(z.tile_shape, z.tile_index()))
    acc.add(ct.load_tile_like(x, z), (0, 0))
    s = ct.load_tile_like(x, acc)  # E: CT216 "accumulator"


@ct.kernel
def other_mut(z: Mut[Tensor[f32, (1, 100)]], w: Mut[Tensor[f32, (1, 50)]]) -> None:
    t = ct.load_tile_like(w, z)  # E: CT211 "w.load()"
    w.store(w.load())
    z.store(ct.load_tile_like(z, z))
