import cutile as ct
from cutile import Mut, Tensor, bf16, bool_, f8e4m3, f16, f32, f64, i32, i64, u16


@ct.kernel
def good(z: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[bf16, (-1,)],
         d: Tensor[f64, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    u = ct.load_tile_like(h, z).bitcast(u16).bitcast(f16).astype(f32)
    w = ct.load_tile_like(d, z).bitcast(i64).astype(i32)
    z.store(t.bitcast(i32) + u.bitcast(i32) + w + t.bitcast(f32).bitcast(i32))


@ct.kernel
def bad(z: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)], q: Tensor[f8e4m3, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = t.bitcast(f16)  # E: CT211 "widths must match"
    b = t.bitcast(i64)  # E: CT211 "(32 bits) to i64 (64 bits)"
    c = (t > 0.0).bitcast(bool_)  # E: CT211 "only integer"
    e = ct.load_tile_like(q, z).bitcast(i32)  # E: CT211 "f8e4m3"
    f = t.bitcast(3)  # E: CT209
    z.store(t.bitcast(i32))
