"""Programmatic dependent launch in `.then` chains and their graphs: a pdl=True kernel touching,
before its wait, what the launch before it writes (CT308 at the access, from the checker and
from the run alike); weights and other memory it does not touch may come first."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def produce(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) + 1.0)


@ct.kernel(pdl=True)
def consume(z: Mut[Tensor[f32, (64,)]], w: Tensor[f32, (-1,)], h: Tensor[f32, (-1,)]) -> None:
    wt = ct.load_tile_like(w, z)
    ct.wait_for_predecessor()
    z.store(wt * ct.load_tile_like(h, z))


@ct.kernel(pdl=True)
def eager(z: Mut[Tensor[f32, (64,)]], w: Tensor[f32, (-1,)], h: Tensor[f32, (-1,)]) -> None:
    ht = ct.load_tile_like(h, z)  # E: CT308
    ct.wait_for_predecessor()
    z.store(ct.load_tile_like(w, z) * ht)


@ct.kernel(pdl=True)
def overwrite(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.zeros((64,), f32))  # E: CT308
    ct.wait_for_predecessor()
    z.store(ct.load_tile_like(x, z))


w = ct.ones((512,), f32)
x = ct.ones((512,), f32)
h = ct.zeros((512,), f32).partition((64,))
out = ct.zeros((512,), f32).partition((64,))

# weights before the wait, the predecessor's output after it: fine
out, w, h = produce(h, x).then(lambda h, x: consume(out, w, h.unpartition())).sync()

# the predecessor's output before the wait
bad = ct.zeros((512,), f32).partition((64,))
h2 = ct.zeros((512,), f32).partition((64,))
produce(h2, x).then(lambda h2, x: eager(bad, w, h2.unpartition())).sync()

# the same chain through a CUDA graph
h3 = ct.zeros((512,), f32).partition((64,))
bad3 = ct.zeros((512,), f32).partition((64,))
g = produce(h3, x).then(lambda h3, x: eager(bad3, w, h3.unpartition())).graph()

# a write before the wait of what the predecessor reads (write after read)
y = ct.ones((512,), f32)
o1 = ct.zeros((512,), f32).partition((64,))
produce(o1, y).then(lambda o1, y: overwrite(y.partition((64,)), x)).sync()
