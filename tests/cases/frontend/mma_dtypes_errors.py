import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, f64, i8, i16, i32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 32)]], a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)]) -> None:
    x = a.load_tile((64, 16), (0, 0))
    y = b.load_tile((16, 32), (0, 0))
    acc = ct.zeros((64, 32), f32)
    p = ct.mma(x, y, ct.zeros((64, 32), f64))  # E: CT205 "f16 x f16 -> f64"
    q = ct.mma(x.astype(bf16), y.astype(bf16), ct.zeros((64, 32), f16))  # E: CT205
    r = ct.mma(x, y.astype(bf16), acc)  # E: CT205 "supported"
    s = ct.mma(x.astype(i8), y.astype(i8), ct.zeros((64, 32), i16))  # E: CT205
    t = ct.mma(x.astype(f32), y.astype(f32), ct.zeros((64, 32), f16))  # E: CT205
    u = ct.mma(x.astype(i32), y.astype(i32), ct.zeros((64, 32), i32))  # E: CT205
    v = ct.mma(x.astype(i8), y.astype(i8), acc)  # E: CT205
    w = ct.mma(x.astype(f64), y.astype(f64), acc)  # E: CT205
    z.store(p + q + r + s + t + u + v + w)
