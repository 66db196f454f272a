import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    a = x + 1.0  # E: CT211 "'x' is a tensor in global memory"
    b = ct.exp(x)  # E: CT211 "ct.load_tile_like(x, z)"
    c = z * 2.0  # E: CT211
    d = ct.sum(x, 0)  # E: CT211
    p = x.partition((64,))
    e = ct.maximum(p, 0.0)  # E: CT211
    f = x.load_tile((64,), 0)
    z.store(f)
