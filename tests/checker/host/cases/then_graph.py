"""`.then` chains on one stream; `.graph()` captures a launch for cheap replays."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


x = ct.ones((512,), f32)
p = ct.zeros((512,), f32).partition((64,))
q = ct.zeros((512,), f32).partition((64,))

chained = double(p, x).then(lambda z, x: double(q, x))
result = chained.sync()

r = ct.zeros((512,), f32).partition((64,))
g = double(r, x).graph()
for _ in range(100):
    g.replay()
r, x = g.sync()
x = r.unpartition()
