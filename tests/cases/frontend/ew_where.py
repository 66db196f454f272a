import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


@ct.kernel
def where(z: Mut[Tensor[f32, (16, 64)]], w: Mut[Tensor[i32, (16, 64)]],
          x: Tensor[f32, (-1, -1)]) -> None:
    a = ct.load_tile_like(x, z)
    c = a > 0.0
    z.store(ct.where(c, a, 0.0) + ct.where(c, 1.0, a) + ct.where(c, 1, a))
    row = ct.where(ct.arange(64) < 32, 1.0, 0.0)
    z.store(ct.where(c, a, row))
    w.store(ct.where(c, 1, -1))
    col = ct.sum(a, 1, keepdims=True) > 0.0
    z.store(ct.where(col, a, -a))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.where(a, a, 0.0)  # E: CT211 "condition"
    c = ct.where(a > 0.0, a, a.astype(f16))  # E: CT202 "where() branches"
    d = ct.where(a > 0.0, a, ct.zeros((32,), f32))  # E: CT201
    e = ct.where(ct.arange(32) > 0, a, 0.0)  # E: CT201
    i = a.astype(i32)
    f = ct.where(a > 0.0, i, 0.5)  # E: CT214
    z.store(b + c + d + e + f)
