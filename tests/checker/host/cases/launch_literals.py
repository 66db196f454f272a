"""Literal values a launch or a partition refuses (CT406, CT408): every literal the runtime judges
by its kind, the checker judges the same way, at the same span; and CT302 says which of two
overlapping values is the Mut argument."""

import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32, i32

BN = 64.0  # a module-level float: a Const[int] refuses it as it refuses the literal
NAME = "f32"


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], K: Const[int],
          B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * K)


@ct.kernel
def kinds(z: Mut[Tensor[f32, (16,)]], n: i32, s: f32, F: Const[float], G: Const[bool],
          D: Const[DType]) -> None:
    z.store(ct.full((16,), F, D).astype(f32) + n.astype(f32) + s)


x = ct.ones((64,), f32)
z = ct.zeros((64,), f32)
z, x = scale(z.partition((16,)), x, K=2).sync()
z = z.unpartition()
scale(ct.zeros((64,), f32).partition((16,)), x, K=2.5).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K="2").sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=True).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=64.0).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=-2.5).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=None).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=BN).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=NAME).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, 2.5).sync()  # E: CT406
# an unknown or repeated keyword: at the keyword's name, on both sides
scale(ct.zeros((64,), f32).partition((16,)), x, K=2, Q=3).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=2, x=x).sync()  # E: CT406

w = ct.zeros((16,), f32)
w, n, s, F, G, D = kinds(w.partition((16,)), 1, 2.0, 1.5, True, "f32").sync()
w = w.unpartition()
kinds(ct.zeros((16,), f32).partition((16,)), 1.5, 2.0, F=1, G=True, D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, "2", F=1, G=True, D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F="1", G=True, D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F=True, G=True, D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F=1, G=1, D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F=1, G="yes", D=f32).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F=1, G=False, D=4).sync()  # E: CT406
kinds(ct.zeros((16,), f32).partition((16,)), 1, 2, F=1, G=False, D="f99").sync()  # E: CT406

# tile shapes: their kind, rank and entries, at the tile shape
ct.zeros((1000,), f32).partition((128, 2))  # E: CT408
ct.zeros((8, 8), f32).partition((4,))  # E: CT408
ct.zeros((64,), f32).partition(2.5)  # E: CT408
ct.zeros((64,), f32).partition("16")  # E: CT408
ct.zeros((64,), f32).partition((1.5,))  # E: CT408
ct.zeros((64,), f32).partition(tile_shape=(16, 16))  # E: CT408
ct.zeros((64,), f32).partition((16,), blocks=True)  # E: CT408
ct.zeros((64,), f32).partition((16,), blocks=2.5)  # E: CT408
ct.zeros((64,), f32).partition((16,), blocks=0)  # E: CT408
t = ct.zeros((64,), f32).partition(16)
t = t.unpartition()

# overlapping views: the message names the view passed as the Mut argument
base = ct.ones((1000,), f32)
a = base.narrow(0, 0, 600)
b = base.narrow(0, 500, 500)
scale(a.partition((128,)), b, K=1).sync()  # E: CT302
c = base.narrow(0, 100, 100)
scale(c.partition((128,)), base, K=1).sync()  # E: CT302
scale(base.partition((128,)), base, K=1).sync()  # E: CT302

# a list where a number or a tensor goes: refused by its length, as the run words it
scale(ct.zeros((64,), f32).partition((16,)), x, K=[2]).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), [1.0, 2.0], K=2).sync()  # E: CT406
scale(ct.zeros((64,), f32).partition((16,)), x, K=2, grid=[4, 1, 1]).sync()  # E: CT406
