import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


@ct.kernel
def aug(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    t += 1.0
    t -= t * 0.5
    t *= 2
    t /= 3.0
    t **= 2.0
    z.store(t)
    i = t.astype(i32)
    i //= 2
    i %= 7
    i <<= 1
    i >>= 1
    i &= 255
    i |= 1
    i ^= 3
    w.store(i)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.load_tile_like(x, z)
    a += a.astype(f16)  # E: CT202
    b = ct.load_tile_like(x, z)
    b += ct.zeros((32,), f32)  # E: CT201
    u = t.astype(i32)
    u /= 2  # E: CT211
    v = ct.sum(t, 0)
    v += t  # broadcasting may grow a value: it is rebound to the (64,) result
    z.store(v)
