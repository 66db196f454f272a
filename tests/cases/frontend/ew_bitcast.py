import cutile as ct
from cutile import Mut, Tensor, bf16, bool_, f4e2m1, f8e4m3, f8e5m2, f8e8m0, f16, f32, f64, i8, i32, i64, tf32, u8, u16


@ct.kernel
def good(z: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[bf16, (-1,)],
         d: Tensor[f64, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    u = ct.load_tile_like(h, z).bitcast(u16).bitcast(f16).astype(f32)
    w = ct.load_tile_like(d, z).bitcast(i64).astype(i32)
    z.store(t.bitcast(i32) + u.bitcast(i32) + w + t.bitcast(f32).bitcast(i32))


@ct.kernel
def fp8_bytes(z: Mut[Tensor[u8, (64,)]], w: Mut[Tensor[f8e5m2, (64,)]], x: Tensor[f32, (-1,)],
              q: Tensor[f8e4m3, (-1,)], b: Tensor[i8, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    e4 = t.astype(f8e4m3).bitcast(u8)
    e5 = ct.load_tile_like(q, z).bitcast(i8).bitcast(f8e5m2).bitcast(u8)
    z.store(e4 ^ e5 ^ ct.load_tile_like(b, z).bitcast(f8e8m0).bitcast(u8))
    w.store(e4.bitcast(f8e5m2))


@ct.kernel
def bad(z: Mut[Tensor[i32, (64,)]], x: Tensor[f32, (-1,)], q: Tensor[f8e4m3, (-1,)],
        v: Tensor[f4e2m1, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = t.bitcast(f16)  # E: CT211 "widths must match"
    b = t.bitcast(i64)  # E: CT211 "(32 bits) to i64 (64 bits)"
    c = (t > 0.0).bitcast(bool_)  # E: CT211 "only integer, f8"
    e = ct.load_tile_like(q, z).bitcast(i32)  # E: CT211 "f8e4m3 (8 bits) to i32"
    f = t.bitcast(3)  # E: CT209
    g = t.bitcast(tf32)  # E: CT211 "tf32"
    h = ct.load_tile_like(v, z).bitcast(u8)  # E: CT211 "f4e2m1"
    z.store(t.bitcast(i32))
