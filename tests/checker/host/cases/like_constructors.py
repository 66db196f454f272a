"""`ct.zeros_like(t)`, `ones_like`, `empty_like`, `full_like`: a new tensor of `t`'s shape and
dtype (`dtype=` another), as torch's and NumPy's; `t` must be in use, and the fill value must
fit the dtype, on both sides."""

import numpy as np

import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


x = ct.ones((128,), f32)
out = ct.empty_like(x)
out, x = double(out.partition((64,)), x).sync()  # f32 and (128,), from x
halves = ct.zeros_like(x, dtype=f16)
halves, x = double(halves.partition((64,)), x).sync()  # E: CT406
big = ct.full_like(ct.zeros((4,), ct.u8), 300)  # E: CT406
ones = ct.ones_like(np.ones((8,), np.float32))
p = x.partition((64,))
gone = ct.zeros_like(x)  # E: CT301
