import cutile as ct
from cutile import Mut, Tensor, bool_, f32, i32, u8


@ct.kernel
def bits(w: Mut[Tensor[i32, (64,)]], u: Mut[Tensor[u8, (64,)]], m: Mut[Tensor[bool_, (64,)]],
         k: Tensor[i32, (-1,)], x: Tensor[f32, (-1,)]) -> None:
    i = ct.load_tile_like(k, w)
    w.store((i & 255) | (i ^ 7) | (i << 2) | (i >> 1) | ~i)
    b = i.astype(u8)
    u.store((b << 1) | (b & 15) | 255)
    a = ct.load_tile_like(x, w)
    m.store((a > 0.0) & (a < 1.0) | ~(a == 0.5))


@ct.kernel
def bad(w: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)], k: Tensor[i32, (-1,)]) -> None:
    a = ct.load_tile_like(x, w)
    i = ct.load_tile_like(k, w)
    b = a & 1.0  # E: CT211 "f32 tiles"
    c = a << 2  # E: CT211
    d = (a > 0.0) << 1  # E: CT211
    e = i | 1.5  # E: CT214
    u = i.astype(u8)
    f = u | 256  # E: CT214 "does not fit in u8"
    g = u - -1  # E: CT214
    w.store(b + c + d + e + f + g)
