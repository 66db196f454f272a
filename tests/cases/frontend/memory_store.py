import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def stores(z: Mut[Tensor[f32, (128,)]], w: Mut[Tensor[f16, (8, 16)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t)
    z.store(0.0)
    z.store(t.astype(f16))  # E: CT213 "astype(f32)"
    z.store(ct.zeros((64,), f32))  # E: CT213 "(64,)"
    w.store(t.reshape((8, 16)).astype(f16))
    w.store(t.reshape((16, 8)).astype(f16))  # E: CT213
    z.store(1.5)
    w.store(2)
    z.store(x)  # E: CT211 "load it first"
