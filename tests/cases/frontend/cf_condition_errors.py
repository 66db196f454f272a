import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    if t > 0.0:  # E: CT211 "the condition of 'if' must be a scalar bool"
        t = t + 1.0
    if n:  # E: CT211 "i32"
        t = t + 2.0
    while x:  # E: CT211 "tensor"
        t = t + 3.0
    if ct.sum(t, 0):  # E: CT211
        t = t + 4.0
    z.store(t)
