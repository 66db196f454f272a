"""`a @ b` accumulates in the widest supported accumulator and returns the operand dtype."""
import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, i8, i32


@ct.kernel
def matmul(z: Mut[Tensor[f32, (64, 32)]], h: Mut[Tensor[f16, (64, 32)]],
           n: Mut[Tensor[i32, (64, 32)]], g: Mut[Tensor[bf16, (64, 32)]],
           a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)]) -> None:
    x = a.load_tile((64, 16), (0, 0))
    y = b.load_tile((16, 32), (0, 0))
    h.store(x @ y)
    z.store(x.astype(f32) @ y.astype(f32))
    n.store(x.astype(i8) @ y.astype(i8))
    g.store(x.astype(bf16) @ y.astype(bf16))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 32)]], a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)]) -> None:
    x = a.load_tile((64, 16), (0, 0))
    y = b.load_tile((16, 32), (0, 0))
    p = x @ x  # E: CT204
    q = x @ y.astype(f32)  # E: CT205
    r = ct.sum(x, 0) @ y  # E: CT204
    s = x.astype(i32) @ y.astype(i32)  # E: CT205
    t = x @ 2.0  # E: CT204
    z.store(p + q + r + s + t)
