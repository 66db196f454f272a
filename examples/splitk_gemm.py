"""Split-K GEMM, C = A @ B: bf16 in, f32 out, the K loop split across blocks.

When M and N are small and K is large, one block per output tile leaves most of the GPU idle.
Split-K gives each output tile SPLIT blocks (grid axis 2), each summing every SPLIT-th K tile,
and every block adds its partial product into C with an accumulator: `c` is an
`Acc[..., "add"]` parameter, so blocks may add into the same tile and nothing else can touch
it (no block reads it, and no other op writes it). On the GPU these are atomic adds: the order
of the float additions is unspecified, so results match a sequential sum to rounding.
"""

import numpy as np

import cutile as ct
from cutile import Acc, Const, Tensor, bf16, f32


@ct.kernel
def splitk_gemm(c: Acc[Tensor[f32, (-1, -1)], "add"], a: Tensor[bf16, (-1, -1)],
                b: Tensor[bf16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int],
                SPLIT: Const[int]) -> None:
    i = ct.block_id(0)
    j = ct.block_id(1)
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.block_id(2), ct.num_tiles(pa, 1), SPLIT):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    c.add(acc, (i, j))  # masked where the tile passes the edge of C


def splitk(a: ct.HostTensor, b: ct.HostTensor, tiles: tuple[int, int, int] = (64, 64, 64),
           split: int = 4) -> ct.HostTensor:
    """A @ B with split-K; returns the f32 product."""
    m, n = a.shape[0], b.shape[1]
    bm, bn, bk = tiles
    c = ct.zeros((m, n), f32)
    grid = (-(-m // bm), -(-n // bn), split)
    out: ct.HostTensor
    out, _, _ = splitk_gemm(c, a, b, BM=bm, BN=bn, BK=bk, SPLIT=split, grid=grid).sync()
    return out


def main(m: int = 96, n: int = 80, k: int = 1024) -> None:
    a = ct.randn((m, k), bf16, seed=0)
    b = ct.randn((k, n), bf16, seed=1)
    want = a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)
    c = splitk(a, b, tiles=(32, 32, 64), split=4)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-4, atol=1e-3)
    print(f"splitk_gemm: {m}x{n}x{k}, 4-way split-K on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
