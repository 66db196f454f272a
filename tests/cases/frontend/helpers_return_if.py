import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.function
def relu_or_neg(t, negate):
    if negate:
        return -t
    else:
        return ct.maximum(t, 0.0)


@ct.function
def sign(t):
    s = ct.sum(t, 0)
    if s > 0.0:
        return t
    else:
        return -t


@ct.function
def early(t):
    if ct.sum(t, 0) > 0.0:
        return t
    return -t


@ct.function
def clamp(t, lo, hi):
    if lo > hi:
        return t
    elif ct.max(t, 0) < lo:
        return ct.full(t.shape, lo, t.dtype)
    u = ct.minimum(t, hi)
    if ct.min(u, 0) >= lo:
        return u
    return ct.maximum(u, lo)


@ct.function
def mixed(t):
    if ct.sum(t, 0) > 0.0:
        return t
    return ct.sum(t, 0)  # E: CT212


@ct.function
def in_loop(t, n):
    for _ in range(n):
        if ct.sum(t, 0) > 0.0:
            return t  # E: CT101 "return inside a loop of a helper"
        t = t * 2.0
    return t


@ct.function
def first_iteration(a):  # a return the loop would drop: the helper gives no value from a loop
    for i in range(3):
        return a + 1.0  # E: CT101 "return inside a loop of a helper"
    return a * 100.0


@ct.function
def unrolled_return(a):  # an unrolled loop is straight-line code: its return is the helper's
    for k in (1, 2):
        return a + k


@ct.kernel
def use(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], NEG: Const[bool]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(relu_or_neg(t, True) + relu_or_neg(t, False) + relu_or_neg(t, NEG) + sign(t)
            + unrolled_return(t))
    z.store(early(t) + clamp(t, 0.0, 1.0) + clamp(t, 2.0, 1.0))
    z.store(mixed(t))
    z.store(in_loop(t, 3))
