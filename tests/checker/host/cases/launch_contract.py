"""What the launch contract catches at edit time, each with a valid twin (issue 14, item 3).

The parity test runs this file on the interpreter too: every finding below is also raised at
run time, with the same code on the same line.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def scale(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], alpha: f32) -> None:
    z.store(ct.load_tile_like(x, z) * alpha)


@ct.kernel
def both(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, ("N",)], y: Tensor[f32, ("N",)],
         B: Const[int], N: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


@ct.kernel
def scale_all(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], alpha: f32) -> None:
    for zt in z.tiles():
        zt.store(ct.load_tile_like(x, zt) * alpha)


@ct.kernel
def filled(z: Mut[Tensor[f32, (128,)]], B: Const[int]) -> None:
    z.store(ct.full((B,), 1.0, f32).reshape((128,)))  # E: CT208


x = ct.ones((1024,), f32)

# a tensor moved by .partition() inside a loop body and not rebound
t = ct.zeros((1024,), f32)
for _ in range(2):
    p = t.partition((128,))
    t = p.unpartition()
u = ct.zeros((1024,), f32)
for _ in range(2):
    q = u.partition((128,))  # E: CT306

# partitioning a tensor that a still-pending launch reads
r = ct.ones((1024,), f32)
op = scale(ct.zeros((1024,), f32).partition((128,)), r, 1.0)
op.sync()
r = r.partition((128,))
s = ct.ones((1024,), f32)
op = scale(ct.zeros((1024,), f32).partition((128,)), s, 1.0)
s.partition((128,))  # E: CT303
op.sync()

# the same tensor as the Mut output (partitioned inside the call) and as an input
w = ct.zeros((1024,), f32)
w, x, _ = scale(w.partition((128,)), x, 1.0).sync()
v = ct.zeros((1024,), f32)
scale(v.partition((128,)), v, 1.0).sync()  # E: CT302

# two arguments binding one shape name to different sizes
a = ct.ones((1024,), f32)
b = ct.ones((1024,), f32)
c = ct.ones((512,), f32)
m, a, b = both(ct.zeros((1024,), f32).partition((128,)), a, b).sync()
both(ct.zeros((1024,), f32).partition((128,)), a, c).sync()  # E: CT406

# partition tiles at the call site: any positive extents (slabs), but positive ints
ok = ct.zeros((1024,), f32).partition((256,))
slabs = ct.zeros((1000,), f32).partition((100,))
bad = ct.zeros((1000,), f32).partition((0,))  # E: CT408

# a launch's result used without .sync(), and .sync() unpacked into the wrong number of names
z1 = ct.zeros((1024,), f32).partition((128,))
z1, x, _ = scale(z1, x, 2.0).sync()
z2 = ct.zeros((1024,), f32).partition((128,))
z2, x = scale(z2, x, 2.0)  # E: CT406
z3 = ct.zeros((1024,), f32).partition((128,))
z3, x = scale(z3, x, 2.0).sync()  # E: CT406
z4 = ct.zeros((1024,), f32).partition((128,))
scale(z4, x, 2.0)[0].unpartition()  # E: CT406
z5 = ct.zeros((1024,), f32).partition((128,))
scale(z5, x, 2.0).unpartition()  # E: CT406

# .sync() that raises (B is not a power of two: the kernel fails when it is compiled, and the
# checker reports that in the kernel, from B's value here) is a run: no "never run" warning
# follows the error
try:  # noqa: SIM105 - the try is the point: .sync() raises here
    filled(ct.zeros((1024,), f32).partition((128,)), B=100).sync()
except ct.KernelError:
    pass

# a persistent partition (blocks=) for a kernel that reaches one slab per block (CT410), and
# for one that visits every slab of its block
p1 = ct.zeros((1024,), f32).partition((128,), blocks=3)
p1, x, _ = scale_all(p1, x, 2.0).sync()
p2 = ct.zeros((1024,), f32).partition((128,), blocks=3)
scale(p2, x, 2.0).sync()  # E: CT410
