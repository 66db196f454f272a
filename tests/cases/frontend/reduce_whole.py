import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32, u32


@ct.kernel
def whole(z: Mut[Tensor[f32, (16,)]], w: Mut[Tensor[i32, (16,)]], x: Tensor[f32, (-1, -1)],
          h: Tensor[f16, (-1,)], u: Tensor[u32, (-1,)], N: Const[int]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    s = ct.sum(t)
    m = ct.max(t, keepdims=True)
    a = ct.argmax(t) + ct.argmin(t, None, True).reshape(())
    e = ct.sum(ct.full((), 1.0, f32))
    hs = ct.sum(h.load_tile((N,), (0,))).astype(f32)
    b = ct.xor_sum(u.load_tile((16,), (0,)))
    if s > 0.0:
        s = s * 2.0
    for _ in range(a):
        e += 1.0
    ct.printf("%f %d\n", s, a)
    z.store(t[0, 0:16] + s + m.reshape((1,)) + ct.min(t) + ct.prod(t) + e + hs)
    w.store(ct.full((16,), 0, i32) + a + b.astype(i32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1, -1)], k: f32, i: i32) -> None:
    t = x.load_tile((16, 64), (0, 0))
    a = ct.xor_sum(t)  # E: CT211 "f32 tiles (a bitwise reduction of integers)"
    b = ct.sum(t, keepdims=1)  # E: CT209 "keepdims of sum() (a bool)"
    c = ct.sum(t).reshape((16,))  # E: CT207
    d = ct.argmax(t > 0.0)  # E: CT211 "bool"
    e = ct.scan(t, None, "add")  # E: CT209 "the axis of scan()"
    f = ct.scan(ct.arange(16), 0, "xor")  # E: CT211 "the op 'xor'"
    g = ct.sum(k, 0)  # E: CT203
    z.store(ct.full((16,), 0.0, f32) + ct.sum(k) + ct.max(i).astype(f32))
