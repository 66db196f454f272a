"""A host helper that launches a kernel on its argument (and waits) moves the caller's value
into that launch: a later use is CT301 with the launch's note, and a second call of the helper
is CT301 at that call's argument ("by an earlier call of 'step'"), in the checker and at run
time, with or without a loop around the calls (the runtime cannot tell the two apart: the
wording is right for both)."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


def step(z: ct.Partition, x: ct.Tensor) -> None:
    double(z, x).sync()  # not rebound: the caller's z is moved


def step_in_loop(z: ct.Partition, x: ct.Tensor) -> None:
    double(z=z, x=x).sync()


def run(z: ct.Partition, x: ct.Tensor) -> tuple[ct.Partition, ct.Tensor]:
    return double(z, x).sync()


def rebinding(z: ct.Partition, x: ct.Tensor) -> ct.Partition:
    z, x = double(z, x).sync()  # the helper's own name comes back; the caller's stays moved
    return z


def unsure(z: ct.Partition, x: ct.Tensor, flag: bool) -> None:
    if flag:
        double(z, x).sync()


x = ct.ones((512,), f32)

a = ct.zeros((512,), f32).partition((64,))
step(a, x)
step(a, x)  # E: CT301

b = ct.zeros((512,), f32).partition((64,))
for _ in range(2):
    step_in_loop(b, x)  # E: CT301

c = ct.zeros((512,), f32).partition((64,))
run(c, x)
c.unpartition()  # E: CT301

d = ct.zeros((512,), f32).partition((64,))
d, x = run(d, x)  # rebound from the results: fine
d.unpartition()

e = ct.zeros((512,), f32).partition((64,))
e = rebinding(e, x)
e.unpartition()

g = ct.zeros((512,), f32).partition((64,))
unsure(g, x, False)  # may not move: stay silent
g.unpartition()
