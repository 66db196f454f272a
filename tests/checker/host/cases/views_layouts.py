"""Host views as the runtime sees them: element ranges per axis (and bytes for one launch's
arguments), reshape as a write, bounds from `t.shape` arithmetic, chained launches."""

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z))


@ct.kernel
def rows(z: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
         BN: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def total(a: Acc[Tensor[f32, (-1,)], "add"], x: Tensor[f32, (-1,)]) -> None:
    a.add(x.load_tile((128,), (ct.block_id(0),)), (ct.block_id(0),))


x = ct.ones((1024,), f32)

# bounds worked out from the tensor's shape
t = ct.zeros((1024,), f32)
n = t.shape[0]
half = n // 2
reader = add(ct.zeros((512,), f32).partition((128,)), t[0:half], x)
t[half:].partition((128,))
t[half - 128:n].partition((128,))  # E: CT303
t[min(n, 256):max(256, half)].numpy()
reader.sync()

# two halves of a view(): one box, but disjoint elements: no aliasing in one launch
m = ct.zeros((8, 128), f32)
flat = m.view((4, 256))
add(m.view((1024,))[0:256].partition((128,)), flat[1], x).sync()
add(m.view((1024,))[0:256].partition((128,)), flat[0], x).sync()  # E: CT302
add(m.view(shape=(1024,))[0:512].partition((128,)), flat[1], x).sync()  # E: CT302
wide = m.narrow(axis=1, start=0, length=64)
add(wide.view((-1,))[0:128].partition((128,)), m[4:], x)  # E: CT406
left, right = m.split_at(axis=1, k=64)
rows(left.partition((8, 64)), right).sync()

# reshape() writes (and moves) what it reshapes
r = ct.zeros((1024,), f32)
pending = add(ct.zeros((512,), f32).partition((128,)), r[0:512], x)
r[512:].reshape((4, 128))
r[256:768].reshape((4, 128))  # E: CT303
r.reshape((2, 512))  # E: CT303
pending.sync()
s = ct.zeros((8, 128), f32)
s2 = s.reshape((1024,))
s.numpy()  # E: CT301
s2.reshape((3, 5))  # E: CT406
s3 = s2.reshape(-1)
add(s3[0:512].partition((128,)), s3[512:], x).sync()
p = ct.zeros((8, 128), f32).permute(1, 0)
p.view((1024,))  # E: CT406
q = p.reshape((1024,))  # a strided view is copied: new memory
add(q[0:512].partition((128,)), q[256:768], x).sync()  # E: CT302

# a chained launch holds the regions of the launch it follows
c = ct.zeros((1024,), f32)
first = add(c[0:512].partition((128,)), x, x)
chain = first.then(lambda z, a, b: add(z, a, b))
c[512:].numpy()
c[256:768].numpy()  # E: CT307
chain.sync()
c.numpy()

# an accumulator view comes back as the same view
g = ct.zeros((1024,), f32)
back, _ = total(g[0:512], x, grid=4).sync()
other = add(ct.zeros((512,), f32).partition((128,)), g[512:], x)
back.partition((128,))
other.sync()

# a meta tensor has no memory to alias: its launch is CT406 only
meta = ct.meta((1024,), f32)
add(meta.partition((128,)), meta, x).sync()  # E: CT301 CT406
