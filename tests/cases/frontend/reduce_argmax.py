import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def good(z: Mut[Tensor[i32, (16,)]], w: Mut[Tensor[i32, (16, 1)]],
         x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    z.store(ct.argmax(t, 1) + ct.argmin(t, axis=-1))
    w.store(ct.argmin(t, 1, keepdims=True))


@ct.kernel
def bad(z: Mut[Tensor[i32, (16,)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    a = ct.argmax(t, 2)  # E: CT206
    b = ct.argmin(t > 0.0, 0)  # E: CT211 "bool tiles"
    c = ct.argmax(ct.sum(ct.sum(t, 1), 0), 0)  # E: CT203
    d = ct.argmax(t, keepdims=0)  # E: CT209 "keepdims of argmax()"
    z.store(ct.argmax(t, 0))  # E: CT213
