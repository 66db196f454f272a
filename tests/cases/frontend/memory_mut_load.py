import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def accumulate(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    old = z.load()
    z.store(old + ct.load_tile_like(x, z))


@ct.kernel
def bad(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = z.load((32, 32))  # E: CT203 "z.load(shape, index) needs a tuple of 2 indices"
    c = z.load((0, 0), (0, 0))  # E: CT208
    b = x.load()  # E: CT109 "load_tile"
    z.store(a + b)
