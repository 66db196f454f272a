"""Every supported operand -> accumulator pair of ct.mma."""
import cutile as ct
from cutile import Mut, Tensor, bf16, f8e4m3, f8e5m2, f16, f32, f64, i8, i32, tf32


@ct.kernel
def pairs(z: Mut[Tensor[f32, (64, 32)]], h: Mut[Tensor[f16, (64, 32)]],
          d: Mut[Tensor[f64, (64, 32)]], n: Mut[Tensor[i32, (64, 32)]],
          a: Tensor[f32, (-1, -1)], b: Tensor[f32, (-1, -1)]) -> None:
    x = a.load_tile((64, 16), (0, 0))
    y = b.load_tile((16, 32), (0, 0))
    acc32 = ct.zeros((64, 32), f32)
    acc16 = ct.zeros((64, 32), f16)
    z.store(ct.mma(x.astype(f16), y.astype(f16), acc32))
    h.store(ct.mma(x.astype(f16), y.astype(f16), acc16))
    z.store(ct.mma(x.astype(bf16), y.astype(bf16), acc32))
    z.store(ct.mma(x.astype(tf32), y.astype(tf32), acc32))
    z.store(ct.mma(x, y, acc32))
    z.store(ct.mma(x.astype(f8e4m3), y.astype(f8e4m3), acc32))
    h.store(ct.mma(x.astype(f8e4m3), y.astype(f8e4m3), acc16))
    z.store(ct.mma(x.astype(f8e5m2), y.astype(f8e5m2), acc32))
    h.store(ct.mma(x.astype(f8e5m2), y.astype(f8e5m2), acc16))
    d.store(ct.mma(x.astype(f64), y.astype(f64), ct.zeros((64, 32), f64)))
    n.store(ct.mma(x.astype(i8), y.astype(i8), ct.zeros((64, 32), i32)))
