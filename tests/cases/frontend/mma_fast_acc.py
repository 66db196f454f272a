import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f8e5m2, f32, i32


@ct.kernel
def fast(z: Mut[Tensor[f32, (64, 32)]], a: Tensor[f8e4m3, (-1, -1)], b: Tensor[f8e5m2, (-1, -1)],
         FAST: Const[bool]) -> None:
    x = a.load_tile((64, 32), (0, 0))
    y = b.load_tile((32, 32), (0, 0)).astype(f8e4m3)
    acc = ct.mma(x, y, ct.zeros((64, 32), f32), fast_acc=True)
    acc = ct.mma(x, y, acc, fast_acc=FAST)
    z.store(ct.mma(x.astype(f8e5m2), y.astype(f8e5m2), acc, fast_acc=False))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 32)]], a: Tensor[bf16, (-1, -1)], n: i32) -> None:
    x = a.load_tile((64, 32), (0, 0))
    y = a.load_tile((32, 32), (0, 0))
    p = ct.mma(x, y, ct.zeros((64, 32), f32), fast_acc=True)  # E: CT205 "applies to f8 operands"
    q = ct.mma(x.astype(f8e4m3), y.astype(f8e4m3), ct.zeros((64, 32), f32),
               fast_acc=n > 0)  # E: CT209 "fast_acc of mma()"
    z.store(p + q)
