"""The quick-start vector add for f16 (examples/add.py is the f32 one), same body."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16


@ct.kernel
def add_f16(z: Mut[Tensor[f16, ("B",)]], x: Tensor[f16, (-1,)], y: Tensor[f16, (-1,)],
            B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty)
