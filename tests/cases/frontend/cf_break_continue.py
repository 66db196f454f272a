import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def jumps(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    for i in range(n):
        t = p.load(i)
        if ct.sum(t, 0) < 0.0:
            continue
        acc = acc + t
        if ct.max(acc, 0) > 100.0:
            break
    j = 0
    while True:
        j = j + 1
        if j > n:
            break
        if j == 3:
            continue
        acc = acc * 0.5
    z.store(acc)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    break  # E: CT101 "outside a loop"
    z.store(t)


@ct.kernel
def bad_continue(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    acc = ct.zeros((64,), f32)
    for i in range(n):
        if i == 2:
            acc = acc.astype(i32)  # E: CT212
            continue
        acc = acc + 1.0
    if n > 0:
        continue  # E: CT101
    z.store(acc)
