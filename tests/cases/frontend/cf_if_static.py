"""Conditions known at compile time (literals, Const parameters) pick one branch: the other
is never compiled, so its types need not agree."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

DEBUG = False


@ct.kernel
def static(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int],
           USE_F16: Const[bool]) -> None:
    t = ct.load_tile_like(x, z)
    if DEBUG:
        t = t.astype(f16)
    if B > 64:
        t = t * 2.0
    else:
        t = t * 3.0
    if USE_F16:
        u = t.astype(f16).astype(f32)
    else:
        u = t
    if USE_F16 and B > 64:
        u = u + 1.0
    z.store(t + u)
    if True:
        w = t
    z.store(w)
