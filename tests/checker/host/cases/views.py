"""Host views: disjoint views run together; overlapping ones are reported where they are used."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
           BN: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


@ct.kernel
def inc(z: Mut[Tensor[f32, ("BM", "BN")]], BM: Const[int], BN: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def pair(a: Mut[Tensor[f32, ("BM", "BN")]], b: Mut[Tensor[f32, ("BM", "BN")]], BM: Const[int],
         BN: Const[int]) -> None:
    a.store(ct.full((BM, BN), 1.0, f32))
    b.store(ct.full((BM, BN), 2.0, f32))


t = ct.zeros((8, 8), f32)
left, right = t.split_at(1, 4)
pair(left.partition((4, 4)), right.partition((4, 4))).sync()
pair(t[0:4].partition((4, 4)), t[2:6].partition((4, 4))).sync()  # E: CT302
double(t[:, 0:4].partition((4, 4)), t[:, 2:6]).sync()  # E: CT302
double(t[:, 0:4].partition((4, 4)), t[:, 4:8]).sync()

reader = double(ct.zeros((4, 8), f32).partition((4, 4)), t[0:4])
writer = inc(t[4:8].partition((2, 4)))
t[2:6].partition((2, 4))  # E: CT303
t.narrow(0, 3, 2).partition((2, 4))  # E: CT303
t.numpy()  # E: CT307
double(ct.zeros((4, 8), f32).partition((4, 4)), t[5:7])  # E: CT307
t[0:4].numpy()
reader.sync()
writer.sync()

u = ct.zeros((4, 8), f32)
ut = u.permute(1, 0)
w = inc(ut[0:4].partition((4, 4)))
u[:, 4:8].numpy()
u[:, 3:5].numpy()  # E: CT307
w.sync()

p = u[0:2].partition((2, 4))
r = double(ct.zeros((4, 8), f32).partition((4, 4)), u)
inc(p).sync()  # E: CT303
r.sync()
inc(p).sync()

base = ct.zeros((8, 8), f32)
flat = base[0:4].view((32, 1))
fw = inc(flat.partition((32, 1)))
base[4:8].numpy()
again = base[0:4].view((32, 1))
again[24:32].numpy()  # E: CT307
fw.sync()

bad = ct.zeros((8, 8), f32)
bad[9]  # E: CT406
bad[1, 2, 3]  # E: CT406
bad[::0]  # E: CT406
bad.narrow(0, 6, 4)  # E: CT406
bad.narrow(2, 0, 1)  # E: CT406
bad.split_at(1, 9)  # E: CT406
bad.permute(0, 0)  # E: CT406
bad.permute(1, 0).narrow(0, 2, 4).numpy()


# Filling the very view a launch reads is CT303, with its bounds known or not; other views of the
# storage, of bounds the checker cannot know, are the runtime's to judge.
k = int(np.random.default_rng(0).integers(4, 5))
x = ct.zeros((8, 8), f32)
lo, hi = x.split_at(0, k)
op = double(ct.zeros((4, 8), f32).partition((4, 4)), hi)
hi.fill_(3.0)  # E: CT303
lo.fill_(1.0)
op.sync()
y = ct.zeros((8, 8), f32)
top = y[0:4]
op = double(ct.zeros((4, 8), f32).partition((4, 4)), top)
top.fill_(2.0)  # E: CT303
y[4:8].fill_(1.0)
y.fill_(0.0)  # E: CT303
op.sync()


# A view past the end is empty: it shares no element with what a pending launch writes, even
# the whole storage (the runtime finds no clash either).
whole = ct.zeros((16, 8), f32)
past = whole[99:131]
busy = inc(whole.partition((8, 8)))
past.numpy()
past.partition((4, 4))
busy.sync()
