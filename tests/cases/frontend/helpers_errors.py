from numpy import exp
from somewhere_else import scaled

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.function
def twice(t, k=2.0):
    return t * k


@ct.function
def down(t):
    return up(t)


@ct.function
def up(t):
    return down(t)  # E: CT105 "down -> up -> down"


@ct.function
def fact(t):
    return fact(t)  # E: CT105


def plain(t):
    return t


@ct.kernel
def other(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(0.0)


@ct.kernel
def use(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = twice(t, 1.0, 2.0)  # E: CT110 "at most 2"
    b = twice(t, scale=1.0)  # E: CT110 "no argument named 'scale'"
    c = twice()  # E: CT110 "missing the argument 't'"
    d = twice(t, t=t)  # E: CT110 "two values"
    e = down(t)
    f = fact(t)
    g = plain(t)  # E: CT104 "@ct.function"
    h = other(z)  # E: CT104 "other kernels"
    print(t)  # E: CT104 "ct.printf"
    n = len(t)  # E: CT104
    k = scaled(t)  # E: CT104 "module 'somewhere_else', which cutile cannot find in this project"
    q = exp(t)  # E: CT104 "use ct.exp(...)"
    m = twice  # E: CT211 "call it"
    z.store(a + b + c + d + e + f + g + h + n + m + k + q)
