import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def accumulate(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    old = z.load()
    z.store(old + ct.load_tile_like(x, z))


@ct.kernel
def bad(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = z.load((0, 0))  # E: CT110
    b = x.load()  # E: CT109 "load_tile"
    z.store(a + b)
