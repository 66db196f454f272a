"""Scalar parameters arrive as rank-0 tiles."""
import cutile as ct
from cutile import Mut, Tensor, bool_, f16, f32, i32, i64


@ct.kernel
def scalars(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], alpha: f32, n: i32, big: i64,
            flag: bool_, h: f16) -> None:
    t = ct.load_tile_like(x, z)
    t = t * alpha + n.astype(f32) + big.astype(f32) + h.astype(f32)
    if flag:
        t = -t
    z.store(ct.where(flag, t, 0.0))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], alpha: f32, n: i32, h: f16) -> None:
    t = ct.load_tile_like(x, z)
    a = t * n  # E: CT202
    b = t + h  # E: CT202 "f32 and f16"
    c = ct.zeros((64,), f32) + alpha
    d = x.load_tile((64,), alpha)  # E: CT211
    z.store(a + b + c + d)
