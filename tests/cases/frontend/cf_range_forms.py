import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def forms(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32, N: Const[int]) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    for i in range(4):
        acc = acc + p.load(i)
    for i in range(1, N):
        acc = acc + p.load(i)
    for i in range(0, n, 2):
        acc = acc + p.load(i)
    for i in range(ct.block_id(0), ct.num_tiles(p, 0), ct.num_blocks(0)):
        acc = acc + p.load(i)
    for i in range(N // 2, N * 2, N):
        acc = acc + p.load(i)
    z.store(acc)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], f: f32) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    for i in range(0, 8, 0):  # E: CT211 "step below 1"
        acc = acc + p.load(i)
    for i in range(1.5):  # E: CT211
        acc = acc + p.load(i)
    for i in range(f):  # E: CT211 "f32"
        acc = acc + p.load(i)
    for i in range(0, 1, 2, 3):  # E: CT110
        acc = acc + p.load(i)
    for i in range(ct.zeros((2,), i32)):  # E: CT203 "scalar"
        acc = acc + p.load(i)
    for i in acc:  # E: CT113 "'acc' (a tile: split it"
        acc = acc + i
    for i in f:  # E: CT113 "not over 'f'"
        acc = acc + p.load(i)
    for i, j in range(4):  # E: CT113
        acc = acc + p.load(i)
    z.store(acc)
