"""Tiled GEMM, C = A @ B: bf16 in, f32 accumulate, bf16 out.

Two safe variants of the same kernel body:
- `gemm`: one output tile per block, visited in grouped order (`order=ct.grouped(8)`) so that
  consecutive blocks reuse A and B tiles from L2;
- `gemm_persistent`: a fixed number of blocks (`blocks=...`), each looping over its tiles with
  `for slab in c.tiles()`, where `slab` is this iteration's tile of `c`: `slab.tile_index()`
  picks the inputs and `slab.store(...)` writes it, so no block can write another's tile.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32


@ct.function
def tile_product(a, b, i, j, BM, BN, BK):  # type: ignore[no-untyped-def]
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    return acc


@ct.kernel
def gemm(c: Mut[Tensor[bf16, ("BM", "BN")]], a: Tensor[bf16, (-1, -1)],
         b: Tensor[bf16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = c.tile_index()
    c.store(tile_product(a, b, i, j, BM, BN, BK).astype(bf16))


@ct.kernel
def gemm_persistent(c: Mut[Tensor[bf16, ("BM", "BN")]], a: Tensor[bf16, (-1, -1)],
                    b: Tensor[bf16, (-1, -1)], BM: Const[int], BN: Const[int],
                    BK: Const[int]) -> None:
    for slab in c.tiles():
        i, j = slab.tile_index()
        slab.store(tile_product(a, b, i, j, BM, BN, BK).astype(bf16))


def main(m: int = 256, n: int = 256, k: int = 128, tiles: tuple[int, int, int] = (64, 64, 32),
         ) -> None:
    bm, bn, bk = tiles
    a = ct.randn((m, k), bf16, seed=0)
    b = ct.randn((k, n), bf16, seed=1)
    want = a.numpy().astype(np.float32) @ b.numpy().astype(np.float32)
    c = ct.zeros((m, n), bf16).partition((bm, bn), order=ct.grouped(8))
    c, a, b = gemm(c, a, b, BK=bk).sync()
    np.testing.assert_allclose(c.unpartition().numpy().astype(np.float32), want, rtol=2e-2,
                               atol=1e-1)
    c2 = ct.zeros((m, n), bf16).partition((bm, bn), order=ct.grouped(8), blocks=3)
    c2, a, b = gemm_persistent(c2, a, b, BK=bk).sync()
    np.testing.assert_allclose(c2.unpartition().numpy().astype(np.float32), want, rtol=2e-2,
                               atol=1e-1)
    print(f"gemm: {m}x{n}x{k} (grouped and persistent) on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
