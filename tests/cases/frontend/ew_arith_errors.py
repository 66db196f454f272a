import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32, u8


@ct.kernel
def arith(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], y: Tensor[f16, (-1,)],
          k: Tensor[i32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    b = ct.load_tile_like(y, z)
    i = ct.load_tile_like(k, z)
    c = a + b  # E: CT202 "cannot add f32 and f16 tiles"
    d = a * i  # E: CT202 "multiply f32 and i32"
    e = i / i  # E: CT211 "use // for integer division"
    f = i ** 2  # E: CT211
    g = a - ct.zeros((32,), f32)  # E: CT201 "(64,) and (32,)"
    h = 1 / 0  # E: CT211 "division by zero"
    z.store(c + d + e + f + g + h)


@ct.kernel
def int_edges(z: Mut[Tensor[i32, (64,)]], w: Mut[Tensor[u8, (64,)]], k: Tensor[i32, (-1,)],
              D: Const[int]) -> None:
    i = ct.load_tile_like(k, z)
    u = ct.load_tile_like(k, w).astype(u8)
    a = i // 0  # E: CT211 "'//' does not accept a divisor of 0 on i32 tiles"
    b = i % 0  # E: CT211 "'%' does not accept a divisor of 0"
    c = ct.cdiv(i, 0)  # E: CT211 "divisor of 0"
    d = i << 32  # E: CT211 "'<<' does not accept a shift by 32 on i32 tiles (shifts of i32 take 0 to 31)"
    e = i >> -1  # E: CT211 "a shift by -1"
    f = u << 8  # E: CT211 "shifts of u8 take 0 to 7"
    i //= 0  # E: CT211 "divisor of 0"
    g = i // D + (i << D) + (0 // i) + (1 << i)  # Consts are checked once known; tiles at run time
    h = (i << 31) + (i >> 0) + i // -1 + i % -1 + (u >> 7).astype(i32)
    x = ct.load_tile_like(k, z).astype(f32)
    z.store(a + b + c + d + e + f.astype(i32) + g + h + (x // 0.0 + x % 0.0).astype(i32))


# tf32 and f8 tiles are mma inputs (and f8 a storage format): tileiras has no arithmetic,
# comparison or reduction on them, so neither backend has; selects, conversions and mma do.
@ct.kernel
def mma_input_formats(z: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((16, 16), (0, 0)).astype(ct.tf32)
    e = x.load_tile((16, 16), (0, 0)).astype(ct.f8e4m3)
    a = t + t  # E: CT211 "an mma input format"
    b = e * 2.0  # E: CT211 "an mma input format"
    c = t > 0.0  # E: CT211 "an mma input format"
    d = ct.max(e, 0)  # E: CT211 "an mma input format"
    f = ct.exp(t)  # E: CT211 "an mma input format"
    g = ct.where(x.load_tile((16, 16), (0, 0)) > 0.0, t, t).astype(f32)
    h = ct.mma(t, t, ct.zeros((16, 16), f32)) + e.astype(f32)
    z.store(g + h)
