"""Extra kernels for the GPU check: an f16 GEMM in column-major tile order (the examples' GEMMs
are bf16) and a Mut slab read back after stores (token ordering)."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def gemm_f16(c: Mut[Tensor[f16, ("BM", "BN")]], a: Tensor[f16, (-1, -1)],
             b: Tensor[f16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = c.tile_index()
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    c.store(acc.astype(f16))


@ct.kernel
def reread(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)], n: i32) -> None:
    z.store(ct.load_tile_like(x, z))
    for _ in range(n):
        z.store(z.load() * 2.0)
    if n > 3:
        z.store(z.load() + 1.0)
