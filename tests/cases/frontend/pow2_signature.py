import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (100,)]], x: Tensor[f32, (-1,)]) -> None:  # E: CT208 "100"
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def ok(z: Mut[Tensor[f32, (128, "B")]], x: Tensor[f32, (100, -1)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))
