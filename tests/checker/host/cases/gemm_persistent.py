"""A persistent GEMM launch: grouped tile order, a fixed block count, Consts by keyword."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

BK = 32


@ct.kernel
def gemm(c: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[f16, (-1, -1)],
         b: Tensor[f16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    for slab in c.tiles():
        acc = ct.zeros((BM, BN), f32)
        slab.store(acc)


def run(m: int, n: int, k: int) -> object:
    a = ct.randn((m, k), f16)
    b = ct.randn((k, n), f16)
    c = ct.zeros((m, n), f32).partition((128, 64), order=ct.grouped(8), blocks=132)
    c, a, b = gemm(c, a, b, BK=BK).sync()
    return c.unpartition().numpy()
