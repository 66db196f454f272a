"""Kernels generic over the element dtype (`Tensor["T", ...]` with `T: Const[DType]`): each
launch infers T from its arguments as shape Consts are inferred; two arguments that imply
different dtypes, or a T=... keyword that disagrees with one, are CT406 at the argument, on
both sides (the parity test runs this file on the interpreter too)."""

import cutile as ct
from cutile import Acc, Const, DType, Mut, Tensor, bf16, f16, f32, i16, i32, u8


@ct.kernel
def scale(z: Mut[Tensor["T", ("B",)]], x: Tensor["T", (-1,)], T: Const[DType],
          B: Const[int]) -> None:
    z.store((ct.load_tile_like(x, z).astype(f32) * 2.0).astype(T))


@ct.kernel
def flip_sign(z: Mut[Tensor["T", ("B",)]], x: Tensor["T", (-1,)], T: Const[DType],
              B: Const[int]) -> None:
    bits = ct.load_tile_like(x, z).bitcast(i16)  # E: CT211
    z.store((bits ^ ct.full((B,), -32768, i16)).bitcast(T))


@ct.kernel
def counts(h: Acc[Tensor["T", (16,)], "add"], x: Tensor[i32, (-1,)], T: Const[DType]) -> None:
    h.add_at((x.load_tile((16,), (0,)) % 16,), ct.full((16,), 1, T))


# one kernel, several dtypes: each its own specialization
for dt in (f32, f16, bf16, u8):
    z = ct.zeros((100,), dt).partition((64,))
    z, _ = scale(z, ct.ones((100,), dt)).sync()
z = ct.zeros((100,), bf16).partition((64,))
z, _ = scale(z, ct.ones((100,), bf16), T=bf16).sync()

# the Mut gives T=bf16, the tensor says f16
z = ct.zeros((100,), bf16).partition((64,))
scale(z, ct.ones((100,), f16)).sync()  # E: CT406
# a keyword that disagrees with the arguments
z = ct.zeros((100,), f16).partition((64,))
scale(z.unpartition().partition((64,)), ct.ones((100,), f16), T=bf16).sync()  # E: CT406 CT406

# the kernel body is typed with T's value: a 16-bit bitcast is fine for T=f16 only
y = ct.zeros((128,), f16).partition((64,))
y, _ = flip_sign(y, ct.ones((128,), f16)).sync()
w = ct.zeros((128,), f32).partition((64,))
flip_sign(w, ct.ones((128,), f32)).sync()

# an Acc's op must take the dtype T gets
h = ct.zeros((16,), f32)
h, _ = counts(h, ct.arange(16, i32), grid=1).sync()
g = ct.zeros((16,), u8)
counts(g, ct.arange(16, i32), grid=1).sync()  # E: CT406
