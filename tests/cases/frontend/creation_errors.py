import cutile as ct
from cutile import Mut, Tensor, f32, i8, i32


@ct.kernel
def create(z: Mut[Tensor[f32, (128,)]], n: i32) -> None:
    a = ct.zeros((100,), f32)  # E: CT208 "use 64 or 128"
    b = ct.full((128,), 1.5, i32)  # E: CT214 "1.5"
    c = ct.full((128,), 300, i8)  # E: CT214 "does not fit in i8"
    d = ct.zeros((n,), f32)  # E: CT209
    e = ct.arange(n)  # E: CT209
    f = ct.zeros((128,), 3)  # E: CT209 "dtype"
    g = ct.arange(96)  # E: CT208
    h = ct.full((128,), ct.zeros((2,), f32), f32)  # E: CT203
    k = ct.zeros((128,))  # E: CT110
    z.store(a + b + c + d + e + f + g + h + k)
