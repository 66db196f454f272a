import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


@ct.kernel
def arith(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[i32, (64,)]], h: Mut[Tensor[f16, (64,)]],
          x: Tensor[f32, (-1,)], k: Tensor[i32, (-1,)], y: Tensor[f16, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    b = a + a - a * a / (a + 1.0)
    c = b // 2.0 + b % 3.0 + b ** 2.0 + 2 ** b
    d = 1 - c + 2 * c - 3.0 / c
    z.store(-d)
    i = ct.load_tile_like(k, w)
    j = i + i - i * i // (i + 1) + i % 7 + 3 * i - 1
    w.store(-j)
    t = ct.load_tile_like(y, h)
    h.store(t * 0.5 + t / 2 - 1)
