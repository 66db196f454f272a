import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def ok(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)], v: Tensor[f32, (-1,)],
       B: Const[int]) -> None:
    i = ct.block_id(0)
    t = x.load_tile((16, 64), (i, 0))
    r = v.load_tile((B,), i)
    s = v.load_tile((64,), (i,))
    z.store(t + ct.expand_dims(s, 0))
    _ = r


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f32, (-1, -1)], n: i32) -> None:
    i = ct.block_id(0)
    a = x.load_tile((16,), (i, 0))  # E: CT203
    b = x.load_tile((16, 48), (i, 0))  # E: CT208 "48"
    c = x.load_tile((16, 64), i)  # E: CT203 "a tuple of 2 indices"
    d = x.load_tile((16, 64), (i, 0.5))  # E: CT211
    e = x.load_tile((n, 64), (i, 0))  # E: CT209
    z.store(a + b + c + d + e)
