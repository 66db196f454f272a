"""Helpers are inlined per call, so Const arguments stay compile-time inside them."""
import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32

ROWS = 16


@ct.function
def block(n, dtype):
    return ct.zeros((ROWS, n), dtype)


@ct.function
def row_sum(t, axis=1, keep=False):
    return ct.sum(t, axis, keepdims=keep)


@ct.function
def nothing(t):
    t = t + 1.0


@ct.kernel
def use(z: Mut[Tensor[f32, (16, "N")]], r: Mut[Tensor[f32, (16,)]], N: Const[int],
        D: Const[DType]) -> None:
    z.store(block(N, f32) + block(N, dtype=D).astype(f32))
    r.store(row_sum(block(N, f32)))
    z.store(row_sum(block(N, f32), keep=True) + block(N, f32))
    nothing(r.load())
