import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def nested(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)], M: Const[int],
           N: Const[int]) -> None:
    p = x.partition((32, 32))
    acc = ct.zeros((32, 32), f32)
    steps = 0
    for i in range(M):
        row = ct.zeros((32, 32), f32)
        for j in range(N):
            row = row + p.load((i, j))
            steps += 1
            if steps > 100:
                break
        acc = acc + row
    z.store(acc + steps.astype(f32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    acc = ct.zeros((32, 32), f32)
    for i in range(4):
        for j in range(4):
            acc = acc.astype(f16)  # E: CT212
        inner = acc
    z.store(inner)  # E: CT111 "inside a loop"
