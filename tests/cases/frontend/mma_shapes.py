import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def batched(z: Mut[Tensor[f32, (2, 64, 32)]], a: Tensor[f16, (-1, -1, -1)],
            b: Tensor[f16, (-1, -1, -1)], K: Const[int]) -> None:
    x = a.load_tile((2, 64, 16), (0, 0, 0))
    y = b.load_tile((2, 16, 32), (0, 0, 0))
    z.store(ct.mma(x, y, ct.zeros((2, 64, 32), f32)))
    u = a.load_tile((2, 64, K), (0, 0, 0))
    v = b.load_tile((2, K, 32), (0, 0, 0))
    z.store(ct.mma(u, v, z.load()))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 32)]], a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)]) -> None:
    x = a.load_tile((64, 16), (0, 0))
    y = b.load_tile((16, 32), (0, 0))
    acc = ct.zeros((64, 32), f32)
    p = ct.mma(x, x, acc)  # E: CT204 "K differs (16 vs 64)"
    q = ct.mma(x, y, ct.zeros((32, 64), f32))  # E: CT204 "acc must have shape (M, N)"
    r = ct.mma(ct.sum(x, 0), y, acc)  # E: CT204 "rank 2"
    s = ct.mma(x, y, ct.zeros((64, 64), f32))  # E: CT204
    t = ct.mma(x, y)  # E: CT110 "acc"
    z.store(p + q + r + s + t)
