import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, ("B",)]], B: Const[int], D: Const[DType], FLAG: Const[bool]) -> None:
    t = ct.zeros((B,), D)
    u = ct.full((B,), B * 2 + 1, f32)
    if FLAG:
        u = u * 2.0
    z.store(t.astype(f32) + u)


@ct.kernel
def bad(z: Mut[Tensor[f32, ("B",)]], B: Const[int], D: Const[DType]) -> None:
    B = 4  # E: CT210 "Const parameter 'B' cannot be reassigned"
    B += 1  # E: CT210
    t = ct.zeros((64,), f32) * D  # E: CT210 "'D' is a dtype, not a number"
    u = ct.zeros((64,), f32) + f32  # E: CT211 "the dtype f32"
    for B in range(3):  # E: CT210
        pass
    z.store(t + u)
