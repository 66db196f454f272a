"""RMS norm in f32 for an f16 tensor, with a module-level epsilon."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

EPS = 1e-6


@ct.kernel
def rms_norm(z: Mut[Tensor[f16, (1, "N")]], x: Tensor[f16, (-1, "N")], w: Tensor[f16, ("N",)],
             N: Const[int]) -> None:
    t = ct.load_tile_like(x, z).astype(f32)
    ms = ct.sum(t * t, 1, keepdims=True) / N
    r = ct.rsqrt(ms + EPS)
    wt = w.load_tile((N,), 0).astype(f32)
    z.store((t * r * wt).astype(f16))
