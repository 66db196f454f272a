import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def loop(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    p = x.partition((64,))
    i = ct.block_id(0)
    acc = ct.zeros((64,), f32)
    while i < n:
        acc = acc + p.load(i)
        i = i + ct.num_blocks(0)
    total = ct.sum(acc, 0)
    while total > 1.0:
        total = total * 0.5
    z.store(acc + total)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    i = ct.block_id(0)
    acc = ct.zeros((64,), f32)
    while i < n:
        acc = ct.sum(acc, 0)  # E: CT212
        i = i + 1.5  # E: CT214
    z.store(acc)
