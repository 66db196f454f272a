import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def early(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))
    return


@ct.kernel
def early_none(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(0.0)
    return None


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    return t  # E: CT108 "cannot return a value"
