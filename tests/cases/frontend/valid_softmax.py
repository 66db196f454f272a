"""Softmax over rows: reductions drop the axis unless keepdims=True."""
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def softmax(z: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")], N: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    m = ct.max(t, 1)
    e = ct.exp(t - ct.expand_dims(m, 1))
    s = ct.sum(e, axis=1, keepdims=True)
    z.store(e / s)


@ct.kernel
def softmax_rows(z: Mut[Tensor[f32, (16, 256)]], x: Tensor[f32, (-1, 256)]) -> None:
    t = ct.load_tile_like(x, z)
    m = ct.max(t, axis=-1, keepdims=True)
    e = ct.exp2((t - m) * 1.4426950408889634)
    denom = ct.sum(e, 1)
    z.store(e / ct.expand_dims(denom, 1))
