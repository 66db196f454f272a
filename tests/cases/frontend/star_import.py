"""`from cutile import *` binds every public name: annotations, dtypes and ops resolve."""
from cutile import *


@kernel
def doubled(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = load_tile_like(x, z)
    z.store(maximum(t * 2.0, zeros((B,), f32)) + exp2(t) * 0.0)


@kernel
def wrong(z: Mut[Tensor[f32, (16,)]], x: Tensor[i32, (-1,)]) -> None:
    z.store(load_tile_like(x, z))  # E: CT213
