import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


@ct.kernel
def math(z: Mut[Tensor[f32, (64,)]], h: Mut[Tensor[f16, (64,)]], w: Mut[Tensor[i32, (64,)]],
         x: Tensor[f32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.exp(a) + ct.exp2(a) + ct.log(a) + ct.log2(a) + ct.sqrt(a) + ct.rsqrt(a)
    c = ct.sin(a) + ct.cos(a) + ct.tanh(a) + ct.abs(a) + ct.floor(a) + ct.ceil(a)
    d = ct.maximum(a, 0.0) + ct.minimum(1.0, a) + ct.maximum(b, c)
    z.store(d)
    h.store(ct.exp(a.astype(f16)) * ct.sqrt(2.0))
    i = a.astype(i32)
    w.store(ct.abs(i) + ct.maximum(i, 0) + ct.minimum(i, 7))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    i = a.astype(i32)
    b = ct.exp(i)  # E: CT211 "i32 tiles"
    c = ct.sqrt(i)  # E: CT211
    d = ct.maximum(a, i)  # E: CT202
    e = ct.log(-1.0)  # E: CT211 "math domain error"
    f = ct.exp(a, 2)  # E: CT110 "at most 1"
    g = ct.expp(a)  # E: CT109 "did you mean ct.exp"
    z.store(b + c + d + e + f + g)
