import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def merge(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    s = ct.sum(t, 0)
    if s > 0.0:
        y = t * 2.0
        k = 1
    elif s < -1.0:
        y = -t
        k = 1
    else:
        y = ct.zeros((64,), f32)
        k = 1
    z.store(y + k)
    if s == 0.0:
        t = t + 1.0
    z.store(t)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    s = ct.sum(t, 0)
    if s > 0.0:
        y = t
    else:
        y = t.astype(f16)  # E: CT212 "'y' has type"
    if s > 1.0:
        u = t
    z.store(u)  # E: CT111 "'u' is only bound in some branches of an if"
    if s > 2.0:
        v = t
    else:
        v = ct.sum(t, 0)  # E: CT212
    z.store(y)
    z.store(v)
