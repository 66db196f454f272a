import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def slab(z: Mut[Tensor[f32, (100,)]], x: Tensor[f32, (-1,)]) -> None:  # slabs: any extents
    z.store(x.load_tile((128,), (0,)))
    z.store(ct.load_tile_like(x, z))  # x over the slab: one (128,) tile, zero past 100
    z.store(ct.zeros(z.shape, f32))  # E: CT208 "100"
    z.store(x.load_tile(z.shape, (0,)))  # E: CT208 "use 64 or 128"


@ct.kernel
def ok(z: Mut[Tensor[f32, (128, "B")]], x: Tensor[f32, (100, -1)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))
