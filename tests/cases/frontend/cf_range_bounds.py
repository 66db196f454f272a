import cutile as ct
from cutile import Mut, Tensor, f32, i8, i32, i64, u16, u32


@ct.kernel
def narrow(z: Mut[Tensor[f32, (64,)]], a: i8, b: u16, s: i32) -> None:
    acc = ct.zeros((64,), f32)
    for i in range(a, b, s):  # narrow bounds widen to the i32 loop variable exactly
        acc = acc + 1.0
    for i in range(s, 10, 3):
        if i == 5:
            continue
        acc = acc + 1.0
    z.store(acc)


@ct.kernel
def wide(z: Mut[Tensor[f32, (64,)]], n: i64, m: u32) -> None:
    acc = ct.zeros((64,), f32)
    for i in range(n):  # E: CT211 "a bound of dtype i64 (the loop variable is i32"
        acc = acc + 1.0
    for i in range(0, 10, m):  # E: CT211 "a bound of dtype u32"
        acc = acc + 1.0
    for i in range(n.astype(i32)):
        acc = acc + 1.0
    z.store(acc)
