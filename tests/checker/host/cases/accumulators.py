"""Accumulator launches (issue 16): an Acc argument is a whole tensor, exclusively leased for
the launch like a Mut partition and handed back by .sync(); launches without Mut arguments take
grid=, and grid= beside Mut arguments must be their grid. Each error has a valid twin; the parity
test runs this file on the interpreter too (same codes, same lines).
"""

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32, i32


@ct.kernel
def colsum(acc: Acc[Tensor[f32, ("N",)], "add"], x: Tensor[f32, (-1, "N")],
           BM: Const[int], N: Const[int]) -> None:
    t = x.load_tile((BM, N), (ct.block_id(0), 0))
    acc.add(ct.sum(t, 0), (0,))


@ct.kernel
def copy_and_count(z: Mut[Tensor[f32, (64,)]], h: Acc[Tensor[i32, (-1,)], "add"],
                   x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t)
    h.add_at((ct.zeros((64,), i32),), 1)


@ct.kernel
def total(acc: Acc[Tensor[f32, (-1,)], "add"], x: Tensor[f32, (-1,)]) -> None:
    acc.add(x.load_tile((64,), (ct.block_id(0),)), (0,))


x = ct.ones((128, 16), f32)

# the valid launch: the Acc comes back from .sync(), N inferred from its shape
acc = ct.zeros((16,), f32)
acc, x = colsum(acc, x, BM=32, grid=4).sync()
acc2 = ct.zeros((16,), f32)
op = colsum(acc2, x, BM=32, grid=4)
acc2.numpy()  # E: CT301
op.sync()

# an Acc takes the whole tensor, not a partition
acc3 = ct.zeros((16,), f32)
colsum(acc3.partition((16,)), x, BM=32, grid=4).sync()  # E: CT406

# the Acc's shape binds N, which x must match
acc4 = ct.zeros((8,), f32)
colsum(acc4, x, BM=32, grid=4).sync()  # E: CT406

# without a Mut argument the grid must be given
acc5 = ct.zeros((16,), f32)
colsum(acc5, x, BM=32).sync()  # E: CT406

# the same storage as the Acc and as an input
y = ct.ones((64,), f32)
w = ct.zeros((64,), f32)
w, y = total(w, y, grid=1).sync()
total(y, y, grid=1).sync()  # E: CT302

# grid= beside a Mut argument: only its own grid
h = ct.zeros((4,), i32)
v = ct.ones((256,), f32)
z, h, v = copy_and_count(ct.zeros((256,), f32).partition((64,)), h, v, grid=(4, 1)).sync()
z2, h, v = copy_and_count(ct.zeros((256,), f32).partition((64,)), h, v).sync()
copy_and_count(ct.zeros((256,), f32).partition((64,)), h, v, grid=8).sync()  # E: CT402

# an Acc view leases its region as a write: the base cannot be read until the launch is synced
big = ct.zeros((32,), f32)
lo, hi = big.split_at(0, 16)
op4 = colsum(lo, x, BM=32, grid=4)
big.numpy()  # E: CT307
lo, x = op4.sync()
