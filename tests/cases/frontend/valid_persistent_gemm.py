"""A persistent GEMM: each block visits its slabs with `for zt in z.tiles()` and stores each."""
import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32


@ct.kernel
def persistent_gemm(z: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[bf16, (-1, -1)],
                    b: Tensor[bf16, (-1, -1)], BM: Const[int], BN: Const[int],
                    BK: Const[int]) -> None:
    pa = a.partition((BM, BK))
    pb = b.partition((BK, BN))
    for zt in z.tiles():
        i, j = zt.tile_index()
        acc = ct.zeros((BM, BN), f32)
        for k in range(ct.num_tiles(pa, 1)):
            acc = ct.mma(pa.load((i, k)), pb.load((k, j)), acc)
        zt.store(acc)


@ct.kernel
def persistent_copy(z: Mut[Tensor[f32, (256,)]], x: Tensor[f32, (-1,)]) -> None:
    px = x.partition((256,))
    for zt in z.tiles():
        (i,) = zt.tile_index()
        zt.store(px.load(i) * 2.0)
