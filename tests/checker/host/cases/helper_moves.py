"""A host helper that partitions its argument moves it, as `.partition()` does: calling it twice
with one tensor is CT301 at the second call, and from a loop CT306, in the checker and at run
time (which names the calls, not the line inside the helper)."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


def prep(t: ct.Tensor) -> ct.Partition:
    return t.partition((64,))


def tiled(t: ct.Tensor, n: int) -> ct.Partition:
    p = t.partition((n,))
    return p


def maybe(t: ct.Tensor, flag: bool) -> ct.Partition | ct.Tensor:
    if flag:
        return t.partition((64,))
    return t


x = ct.ones((512,), f32)
a = ct.zeros((512,), f32)
p = prep(a)
q = prep(a)  # E: CT301

b = ct.zeros((512,), f32)
p = tiled(b, 64)
p, x = double(p, x).sync()
b = p.unpartition()
p = tiled(b, 64)  # rebound from the launch's result: fine

c = ct.zeros((512,), f32)
for _ in range(2):
    p = prep(c)  # E: CT306

d = ct.zeros((512,), f32)
for _ in range(2):
    p, x = double(prep(d), x).sync()
    d = p.unpartition()  # rebound inside the loop: fine

e = ct.zeros((512,), f32)
f = maybe(e, False)
g = maybe(e, True)  # not certain to partition: nothing to say


def twice() -> None:
    t = ct.zeros((512,), f32)
    prep(t)
    prep(t)  # E: CT301


twice()
