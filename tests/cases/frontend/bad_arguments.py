import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.cumsum(t)  # E: CT110 "ct.cumsum() is missing the argument 'axis'"
    b = ct.exp(t, 1)  # E: CT110 "ct.exp() takes at most 1 positional argument, 2 given"
    c = ct.sum(t, 0, foo=1)  # E: CT110 "no argument named 'foo'"
    d = ct.sum(t, 0, axis=0)  # E: CT110 "two values for 'axis'"
    e = t.astype(f32, f32)  # E: CT110 "t.astype() takes at most 1"
    f = ct.where(t > 0.0, t)  # E: CT110
    g = ct.load_tile_like(x, z, z)  # E: CT110
    h = z.store(t, 0, 1)  # E: CT110
    k = ct.mma(a=t, b=t)  # E: CT110 "'acc'"
    z.store(a + b + c + d + e + f + g + h + k)
