import cutile as ct
from cutile import Mut, Tensor, f32, i8, u8


@ct.kernel
def bad(r: Mut[Tensor[f32, (16,)]], k: Mut[Tensor[f32, (16, 1)]], x: Tensor[f32, (-1, -1)],
        a: f32) -> None:
    t = x.load_tile((16, 64), (0, 0))
    k.store(ct.sum(t, 1))  # E: CT213 "(16,)"
    r.store(ct.sum(t, 1, keepdims=True))  # E: CT213
    b = ct.sum(t, 2)  # E: CT206 "axis 2 is out of range for a tile of rank 2"
    c = ct.max(t, -3)  # E: CT206
    i = ct.block_id(0)
    d = ct.min(t, i)  # E: CT209
    e = ct.sum(a, 0)  # E: CT203
    f = ct.max(t > 0.0, 0)  # E: CT211 "bool"
    g = ct.prod(t, 0, keepdims=i)  # E: CT209
    h = ct.cumsum(t)  # E: CT110 "axis"
    r.store(b + c + d + e + f + g + h)


@ct.kernel
def narrow_sums(n: Mut[Tensor[i8, (16,)]], u: Mut[Tensor[u8, (16,)]], x: Tensor[i8, (-1, -1)],
                y: Tensor[u8, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    n.store(ct.sum(t, 1))  # E: CT213 "i32"
    n.store(ct.prod(t, 1))  # E: CT213 "i32"
    u.store(ct.sum(y.load_tile((16, 64), (0, 0)), 1))  # E: CT213 "u32"
    u.store(ct.sum(t > 0, 1))  # E: CT213 "i32"
    n.store(ct.max(t, 1) + ct.min(t, 1) + ct.xor_sum(t, 1))  # these keep i8
