import cutile as ct
from cutile import Mut, Tensor, bf16, f16, f32, f64, i32


@ct.kernel
def good(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)],
         b: Tensor[bf16, (-1,)]) -> None:
    t = ct.erf(ct.load_tile_like(x, z)) + ct.erf(0.25)
    u = ct.erf(ct.load_tile_like(h, z)).astype(f32) + ct.erf(ct.load_tile_like(b, z)).astype(f32)
    z.store(t + u)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], d: Tensor[f64, (-1,)], n: Tensor[i32, (-1,)]) -> None:
    a = ct.erf(ct.load_tile_like(d, z))  # E: CT211 "f32 accuracy"
    c = ct.erf(ct.load_tile_like(n, z))  # E: CT211 "i32 tiles"
    e = ct.erf(z)  # E: CT211
    f = ct.erf(1.0, 2.0)  # E: CT110
    z.store(ct.zeros((64,), f32))
