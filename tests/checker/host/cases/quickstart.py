"""docs/design.md §3 quick start: partition the output, launch, rebind everything from .sync()."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty)


x = ct.ones((1024,), f32)
y = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
z, x, y = add(z, x, y).sync()  # grid (8, 1, 1), B = 128 inferred
print(z.unpartition().numpy(), x.numpy(), y.numpy())
