import cutile as ct
from cutile import Const, DType, Mut, Tensor, bf16, f16, f32, i8, i32


@ct.kernel
def casts(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], D: Const[DType]) -> None:
    a = ct.load_tile_like(x, z)
    b = a.astype(f16).astype(bf16).astype(f32)
    c = a.astype(i32).astype(i8).astype(f32)
    d = a.astype(a.dtype)
    e = a.astype(D).astype(f32)
    n = z.shape[0].astype(f32) + (2.5).astype(i32).astype(f32)  # numbers: a scalar of their own
    z.store(b + c + d + e + n)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    b = a.astype(3)  # E: CT209 "dtype"
    c = x.astype(f16)  # E: CT109 "read-only tensor"
    d = a.astype()  # E: CT110
    e = a.astype(float)  # E: CT103
    z.store(b + c + d + e)
