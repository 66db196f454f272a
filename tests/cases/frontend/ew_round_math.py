import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f16, f32, f64, i32, u32, u64


@ct.kernel
def good(z: Mut[Tensor[f32, (64,)]], q: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)],
         h: Tensor[f16, (-1,)], d: Tensor[f64, (-1,)], u: Tensor[u32, (-1,)],
         D: Const[int]) -> None:
    a = ct.load_tile_like(x, z)
    r = ct.round(a) + ct.round(a, 2) + ct.round(a, decimals=-1) + ct.round(a, D) + ct.trunc(a)
    r = r + ct.sign(a) + ct.round(ct.load_tile_like(h, z)).astype(f32)
    r = r + ct.round(ct.load_tile_like(d, z), 3).astype(f32)
    m = ct.sigmoid(a) + ct.log1p(a) + ct.expm1(a) + ct.tan(a) + ct.sinh(a) + ct.cosh(a)
    m = m + ct.atan2(a, 1.0) + ct.pow(a, 2.0) + ct.fma(a, a, 1.0) + ct.clamp(a, 0.0, 1.0)
    m = m + ct.sigmoid(a.astype(bf16)).astype(f32)
    flags = ct.isnan(a) | ct.isinf(a) | ~ct.isfinite(a) | ct.isnan(ct.arange(64))
    z.store(ct.where(flags, 0.0, r + m))
    i = ct.arange(64, i32) - 32
    hi = ct.umulhi(ct.load_tile_like(u, q), 0x9E3779B9) + ct.umulhi(ct.arange(64, u32), 3)
    q.store(ct.round(i) + ct.sign(i) + ct.clamp(i, -4, 4) + hi.astype(i32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], e: Tensor[f8e4m3, (-1,)],
        k: i32) -> None:
    a = ct.load_tile_like(x, z)
    i = ct.arange(64, i32)
    b = ct.round(a, k)  # E: CT209 "decimals of round()"
    c = ct.round(i, -1)  # E: CT211 "negative decimals on i32 tiles"
    f = ct.trunc(i)  # E: CT211 "trunc() does not accept i32 tiles"
    g = ct.round(a > 0.0)  # E: CT211 "bool_"
    j = ct.sign(ct.load_tile_like(e, z))  # E: CT211 "f8e4m3"
    m = ct.umulhi(i, i)  # E: CT211 ".bitcast()"
    n = ct.fma(i, i, i)  # E: CT211 "i32"
    o = ct.fma(a, a.astype(f16), a)  # E: CT202
    p = ct.clamp(a, i, 1.0)  # E: CT202
    s = ct.sigmoid(i)  # E: CT211
    t = ct.isnan(ct.load_tile_like(e, z))  # E: CT211 "f8e4m3 tiles (convert with .astype(f32))"
    v = ct.atan2(a, a.astype(f64))  # E: CT202
    w = ct.umulhi(ct.arange(64, u64), 1.5)  # E: CT214
    z.store(b + c + f + g + j + m + n + o + p + s + t + v + w)
