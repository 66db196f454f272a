"""Launch mistakes that are known before anything runs (CT4xx)."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def two(a: Mut[Tensor[f32, (64,)]], b: Mut[Tensor[f32, (64,)]]) -> None:
    a.store(ct.zeros((64,), f32))
    b.store(ct.zeros((64,), f32))


@ct.kernel
def tiled(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], K: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))



@ct.kernel
def defaults(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], K: Const[int] = 2) -> None:
    z.store(ct.load_tile_like(x, z) * K)


x = ct.ones((1024,), f32)
h = ct.ones((1024,), f16)

z = ct.zeros((1024,), f32).partition((128,), blocks=-1)  # E: CT408
z = ct.zeros((1024,), f32).partition((128,))
add(z, x, B=64).sync()  # E: CT401
add(z, h).sync()  # E: CT406
add(z, x, x).sync()  # E: CT406
tiled(z, x).sync()  # E: CT405
z, x = defaults(z, x).sync()  # K's default: nothing missing
z, x = add(z, x).sync()

a = ct.zeros((1024,), f32).partition((64,))
b = ct.zeros((2048,), f32).partition((64,))
a, b = two(a, b).sync()  # E: CT402

c = ct.zeros((4, 4, 4, 4, 4, 4), f32).partition((2, 2, 2, 2, 2, 2))  # E: CT403
