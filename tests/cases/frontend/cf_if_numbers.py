"""Numbers assigned in the branches of a run-time if become rank-0 tiles: they take the dtype of
a tile assigned in another branch, otherwise their natural dtype (i32, f32 or bool_)."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32, i8


@ct.kernel
def numbers(z: Mut[Tensor[f32, (64,)]], h: Mut[Tensor[f16, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    s = ct.sum(t, 0)
    if s > 0.0:
        scale = 2.0
    else:
        scale = 0.5
    if s > 1.0:
        half = ct.sum(t, 0).astype(f16)
    else:
        half = 1
    z.store(t * scale)
    h.store(t.astype(f16) * half)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    s = ct.sum(t, 0)
    if s > 0.0:
        k = 1
    else:
        k = 2
    z.store(t * k)  # E: CT202 "f32 and i32"
    if s > 1.0:
        b = s.astype(i8)
    else:
        b = 1000  # E: CT214
    z.store(t + 1.0)
