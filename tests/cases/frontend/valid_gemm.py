"""Tiled GEMM: a K loop over partitions, f16 operands, f32 accumulator."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def gemm(z: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[f16, (-1, -1)], b: Tensor[f16, (-1, -1)],
         BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    i, j = z.tile_index()
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
    z.store(acc)


@ct.kernel
def gemm_f16_out(z: Mut[Tensor[f16, (128, 64)]], a: Tensor[f16, (-1, -1)],
                 b: Tensor[f16, (-1, -1)], K: Const[int]) -> None:
    i, j = z.tile_index()
    pa = a.partition((128, 32))
    pb = b.partition((32, 64))
    acc = ct.zeros((128, 64), f32)
    for k in range(K // 32):
        acc += (pa.load((i, k)) @ pb.load((k, j))).astype(f32)
    z.store(acc.astype(f16))
