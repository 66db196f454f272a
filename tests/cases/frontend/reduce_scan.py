import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def good(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    u = ct.scan(t, 1, "add") + ct.scan(t, 0, "mul", reverse=True) + ct.scan(t, -1, op="max")
    z.store(u + ct.scan(t, 1, "min") + ct.cumprod(t, 0) + ct.cumsum(t, 1, reverse=True))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)], flag: f32) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.scan(t, 1, "xor")  # E: CT211 "'add', 'mul', 'max' or 'min'"
    b = ct.scan(t, 1, 3)  # E: CT211
    c = ct.scan(t, 2, "add")  # E: CT206
    d = ct.cumprod(t, 0, reverse=flag)  # E: CT209
    e = ct.scan(t > 0.0, 0, "max")  # E: CT211 "bool tiles"
    f = ct.scan(t, 0)  # E: CT110 "op"
    z.store(a + b + c + d + e + f)
