import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


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
