import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1, -1)], v: Tensor[f32, (-1,)]) -> None:
    p = x.partition((64, 64))
    q = v.partition((64,))
    i = ct.block_id(0)
    acc = ct.zeros((64,), f32)
    for j in range(ct.num_tiles(p, 1)):
        acc = acc + ct.sum(p.load((i, j)), 0)
    acc = acc + q.load(i) + q.load((i,))
    n = ct.num_tiles(q, 0) + ct.num_tiles(p, -1)
    z.store(acc + n.astype(f32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1, -1)]) -> None:
    p = x.partition((64, 64))
    a = p.load(0)  # E: CT203 "rank-2 partition"
    b = p.load((0, 1, 2))  # E: CT203
    n = ct.num_tiles(p, 2)  # E: CT206
    m = ct.num_tiles(x, 0)  # E: CT211 "partition"
    q = x.partition((64,))  # E: CT203
    r = x.partition((60, 64))  # E: CT208
    s = p + 1  # E: CT211
    z.store(a + b + n + m)
