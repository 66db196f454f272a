import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def scan(z: Mut[Tensor[f32, (16, 64)]], w: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(ct.cumsum(t, 1) + ct.cumsum(t, axis=0))
    w.store(ct.cumsum(ct.arange(64), 0))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.cumsum(t, 2)  # E: CT206
    b = ct.cumsum(t > 0.0, 0)  # E: CT211
    c = ct.cumsum(t, 0, keepdims=True)  # E: CT110 "keepdims"
    z.store(a + b + c)
