import cutile as ct
from cutile import Mut, Tensor, f32, i8, i32, u16, u32


@ct.kernel
def scan(z: Mut[Tensor[f32, (16, 64)]], w: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(ct.cumsum(t, 1) + ct.cumsum(t, axis=0))
    w.store(ct.cumsum(ct.arange(64), 0))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.cumsum(t, 2)  # E: CT206
    b = ct.scan(t > 0.0, 0, "min")  # E: CT211 "bool"
    c = ct.cumsum(t, 0, keepdims=True)  # E: CT110 "keepdims"
    z.store(a + b + c)


@ct.kernel
def narrow(w: Mut[Tensor[i32, (64,)]], u: Mut[Tensor[u32, (64,)]], n: Mut[Tensor[i8, (64,)]],
           x: Tensor[i8, (-1,)], y: Tensor[u16, (-1,)]) -> None:
    t = ct.load_tile_like(x, w)
    w.store(ct.cumsum(t, 0) + ct.cumprod(t, 0) + ct.cumsum(t > 0, 0))  # i8 and bool: i32
    u.store(ct.scan(ct.load_tile_like(y, u), 0, "add", reverse=True))  # u16: u32
    n.store(ct.scan(t, 0, "max") + ct.scan(t, 0, "min"))  # max and min keep i8
    n.store(ct.cumsum(t, 0))  # E: CT213 "i32"
