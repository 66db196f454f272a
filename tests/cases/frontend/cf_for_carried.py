import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def carried(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (-1,)],
            N: Const[int]) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    count = 0
    best = ct.full((64,), -1e30, f32)
    for i in range(N):
        t = p.load(i)
        acc = acc + t
        best = ct.maximum(best, t)
        count += 1
    z.store(acc / N + best)
    w.store(ct.full((1,), count, i32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    half = ct.zeros((64,), f32)
    for i in range(4):
        acc = acc.astype(f16)  # E: CT212 "'acc' changes type inside the loop"
        half = ct.sum(half, 0)  # E: CT212
    total = 0
    for i in range(4):
        total = total + 0.5  # E: CT214
    z.store(acc.astype(f32) + half + p.load(0))
