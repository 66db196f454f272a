import cutile as ct
from cutile import Mut, Tensor, bool_, f16, f32, i32


@ct.kernel
def compare(m: Mut[Tensor[bool_, (64,)]], x: Tensor[f32, (-1,)], k: Tensor[i32, (-1,)]) -> None:
    a = ct.load_tile_like(x, m)
    i = ct.load_tile_like(k, m)
    c = (a < 1.0) & (a <= 2.0) | (a > 3.0) ^ (a >= 4.0)
    d = (a == 0.0) | (a != 1.0) | (i == 3) | (0 < i)
    e = (c == d) | (c != True)
    m.store(c & d & e)


@ct.kernel
def bad(m: Mut[Tensor[bool_, (64,)]], x: Tensor[f32, (-1,)], y: Tensor[f16, (-1,)]) -> None:
    a = ct.load_tile_like(x, m)
    b = ct.load_tile_like(y, m)
    c = a < b  # E: CT202 "compare f32 and f16"
    d = 0.0 < a < 1.0  # E: CT102 "Chained comparisons"
    e = a is None  # E: CT102
    f = (a > 0.0) < (a > 1.0)  # E: CT211
    m.store(c & d & e & f)
