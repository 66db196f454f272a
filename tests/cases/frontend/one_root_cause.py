"""One root cause, one diagnostic: names bound by a rejected construct produce no more errors."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def chain(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = t + ct.zeros((32,), f32)  # E: CT201
    b = a * 2.0
    c = ct.exp(b) + a
    z.store(c)
    d, e = missing_name, 1  # E: CT103
    z.store(d + e)
    for i in range(bogus):  # E: CT103
        z.store(t * i)
    u = t.astype(f16) + t  # E: CT202
    if ct.sum(u, 0) > 0.0:
        u = u * 2.0
    z.store(u)


@ct.kernel
def signature(z: Mut[Tensor[f32, (64,)]], x: Tensor[f33, (-1,)]) -> None:  # E: CT107
    t = ct.load_tile_like(x, z)
    z.store(t + 1.0)


@ct.kernel
def loops(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    acc = ct.zeros((64,), f32)
    for i in range(4):
        acc = acc + ct.zeros((32,), f32)  # E: CT201
    z.store(acc)
