import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1, -1)], y: Tensor[f16, (-1, 32)]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty.astype(f32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 32)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)  # E: CT203 "rank 1"
    u = ct.load_tile_like(x, x)  # E: CT211 "Mut"
    v = ct.load_tile_like(z, z)
    z.store(v + t + u)
