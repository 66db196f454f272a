"""A loop that rebinds its outputs from .sync(), with inputs shared by two launches per step."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def axpy(z: Mut[Tensor[f32, (256,)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
         a: f32) -> None:
    z.store(ct.load_tile_like(x, z) * a + ct.load_tile_like(y, z))


def solve(steps: int) -> object:
    x = ct.rand((4096,), f32, seed=0)
    y = ct.zeros((4096,), f32)
    u = ct.zeros((4096,), f32).partition((256,))
    v = ct.zeros((4096,), f32).partition((256,))
    for _ in range(steps):
        first = axpy(u, x, y, 0.5)  # x and y are leased shared by both launches
        second = axpy(v, x, y, 2.0)
        u, x, y, _ = first.sync()
        v, x, y, _ = second.sync()
        if steps > 100:
            continue
    y = u.unpartition()  # safe: nothing pending reads y's old storage
    w = y.partition((256,))
    return w, v
