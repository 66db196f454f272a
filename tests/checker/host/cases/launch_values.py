"""Values a launch cannot take: grids, scalars and tensors out of range, partitions whose launch
grid is beyond the device (the same codes at the same lines on every backend)."""

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32, i32, u8


@ct.kernel
def total(a: Acc[Tensor[f32, (-1,)], "add"], x: Tensor[f32, (-1,)]) -> None:
    a.add(x.load_tile((16,), (ct.block_id(0),)), (ct.block_id(0),))


@ct.kernel
def scaled(z: Mut[Tensor[f32, (16,)]], a: f32, n: i32, b: u8, c: Const[float]) -> None:
    z.store(ct.full((16,), c, f32) * a + n.astype(f32) + b.astype(f32))


@ct.kernel
def ranks(a: Mut[Tensor[f32, (1, 1, 1, 4)]], b: Mut[Tensor[f32, (1, 1, 1)]]) -> None:
    a.store(ct.zeros((1, 1, 1, 4), f32))
    b.store(ct.zeros((1, 1, 1), f32))


@ct.kernel
def pair(a: Mut[Tensor[f32, (4, 4)]], b: Mut[Tensor[f32, (4, 4)]]) -> None:
    a.store(ct.zeros((4, 4), f32))
    b.store(ct.zeros((4, 4), f32))


x = ct.ones((64,), f32)
total(ct.zeros((64,), f32), x, grid=4).sync()
total(ct.zeros((64,), f32), x, grid=(2, 2)).sync()
total(ct.zeros((64,), f32), x, grid=(0,)).sync()  # E: CT406
total(ct.zeros((64,), f32), x, grid=-2).sync()  # E: CT406
total(ct.zeros((64,), f32), x, grid=(1, 2, 3, 4)).sync()  # E: CT406
total(ct.zeros((64,), f32), x, grid=()).sync()  # E: CT406
total(ct.zeros((64,), f32), x, grid=(1, 65536)).sync()  # E: CT406
total(ct.zeros((64,), f32), x, grid=2**31).sync()  # E: CT406

z = ct.zeros((16,), f32)
scaled(z.partition((16,)), 2.0, 3, 4, c=1.5).sync()
scaled(ct.zeros((16,), f32).partition((16,)), 2**128, 3, 4, c=1.5).sync()  # E: CT406
scaled(ct.zeros((16,), f32).partition((16,)), 2, 2**31, 4, c=1.5).sync()  # E: CT406
scaled(ct.zeros((16,), f32).partition((16,)), 2, 3, -1, c=1.5).sync()  # E: CT406
scaled(ct.zeros((16,), f32).partition((16,)), 2, 3, 4, c=2**1024).sync()  # E: CT406

# the tile grid and the launch grid of every Mut argument agree, or CT402 names them
r = ct.zeros((16, 16), f32)
g = ct.zeros((16, 16), f32)
pair(r.partition((4, 4)), g.partition((4, 4), order=ct.grouped(2))).sync()  # E: CT402
c1 = ct.zeros((16, 16), f32).partition((4, 4), order=ct.col_major)
c2 = ct.zeros((16, 16), f32).partition((4, 4), order=ct.grouped(2))
pair(c1, c2).sync()
# trailing 1s of a tile grid do not count, at any rank: (2, 3, 5, 1) is (2, 3, 5)
ranks(ct.zeros((2, 3, 5, 4), f32).partition((1, 1, 1, 4)),
      ct.zeros((2, 3, 5), f32).partition((1, 1, 1))).sync()
ranks(ct.zeros((2, 3, 1, 20), f32).partition((1, 1, 1, 4)),
      ct.zeros((2, 3, 5), f32).partition((1, 1, 1))).sync()  # E: CT402

ct.meta((2**20, 2**20), f32).partition((1, 1), order=ct.col_major)  # E: CT408
ct.meta((1, 1, 300, 300, 1), f32).partition((1, 1, 1, 1, 1))  # E: CT408
ct.zeros((64,), f32).partition((1,), blocks=2**31)  # E: CT408
ct.meta((2**20, 2**20), f32).partition((1, 1), order=ct.grouped(4))  # E: CT408
ct.meta((2**16, 2**15), f32).partition((1, 1))

