"""Kernels generic over Const dtypes, axes and flags: checked as far as possible before
specialization, and without false alarms."""
import cutile as ct
from cutile import Const, DType, Mut, Tensor, f16, f32


@ct.kernel
def generic(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)], D: Const[DType],
            AX: Const[int], KEEP: Const[bool]) -> None:
    t = ct.load_tile_like(x, z)
    if D == f16:
        u = t.astype(f16).astype(f32)
    else:
        u = t
    s = ct.sum(t, AX, keepdims=KEEP)
    p = ct.permute(t, (AX, 1 - AX))
    if t.dtype == f32 and D != f32:
        u = u * 2.0
    z.store(u + ct.zeros((16, 64), D).astype(f32))
    _ = (s, p)
