"""Layer norm with weight and bias, statistics in f32."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

EPS = 1e-5


@ct.kernel
def layer_norm(z: Mut[Tensor[f16, (1, "N")]], x: Tensor[f16, (-1, "N")],
               w: Tensor[f16, ("N",)], b: Tensor[f16, ("N",)], N: Const[int]) -> None:
    t = ct.load_tile_like(x, z).astype(f32)
    mean = ct.sum(t, axis=1, keepdims=True) / N
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / N
    y = d * ct.rsqrt(var + EPS)
    wt = ct.expand_dims(w.load_tile((N,), 0).astype(f32), 0)
    bt = ct.expand_dims(b.load_tile((N,), 0).astype(f32), 0)
    z.store((y * wt + bt).astype(f16))
