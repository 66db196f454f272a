"""Ownership mistakes, each reported once at the use, with a note at the move."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def copy(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


x = ct.ones((1024,), f32)
t = ct.zeros((1024,), f32)
p = t.partition((128,))
print(t.numpy())  # E: CT301

op = copy(p, x)
x.partition((128,))  # E: CT303
p.unpartition()  # E: CT301
op.sync()

s = ct.zeros((1024,), f32)
copy(s, x).sync()  # E: CT304

u = ct.zeros((1024,), f32)
copy(u.partition((128,)), u).sync()  # E: CT302

w = ct.zeros((1024,), f32).partition((128,))
copy(w, x)  # E: CT305
t = w.unpartition()  # E: CT301

v = ct.zeros((1024,), f32).partition((128,))
for _ in range(4):
    copy(v, x).sync()  # E: CT306
