"""Run a statement at a time (a notebook, the REPL), an error leaves the rest of its statement
undone: a name the statement would have bound keeps its old value; a method of a moved value
raises after Python evaluated its arguments; a moved value is reported once, and a later use
raises again without another word. The checker follows the same program."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(z.load() * 2.0)


@ct.kernel
def add(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(z.load() + ct.load_tile_like(x, z))


u = ct.zeros((128,), f32)
v = ct.zeros((128,), f32).partition((64,))
v = u.partition(())  # E: CT403
double(v).sync()  # the old partition: the failed one bound nothing
q = u.partition((64,))  # the failed partition did not move u

w = ct.zeros((128, 64), f32)
w2 = w.partition((64, 64))
w3 = w.partition((64, 64), order=ct.grouped(0))  # E: CT408
w4 = w.partition((64, 64))  # E: CT301
ct.from_dlpack(w2)  # E: CT406

a = ct.zeros((128,), f32)
b = a.partition([64, 64])  # E: CT408
c = a.partition((64,), order="row")  # E: CT408
d = a.partition((64,), blocks=None)  # not persistent
double(d).sync()

e = ct.zeros((128,), f32)
f = e.partition((64,))
e.numpy()  # E: CT301
g = add(ct.zeros((128,), f32).partition((64,)), e)  # raises again: said already

k = ct.zeros((128,), f32).partition((64,))
k, = add(k, ct.ones((128,), f32)).sync()  # E: CT406
double(k).sync()  # E: CT301

h = ct.zeros((128,), f32).partition((64,))
first = double(h)  # E: CT305
chained = first.then(lambda z: double(z))
