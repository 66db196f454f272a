import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def blocks(z: Mut[Tensor[i32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    a = ct.block_id(3)  # E: CT206 "axis 3"
    t = ct.arange(128, i32)
    b = ct.num_blocks(t)  # E: CT209
    c = ct.block_id()  # E: CT110 "missing the argument 'axis'"
    d = ct.block_id(0, 1)  # E: CT110
    e = ct.block_id(0.5)  # E: CT209
    z.store(a + b + c + d + e)
