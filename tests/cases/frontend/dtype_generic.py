"""Kernels generic over the element dtype: a tensor's dtype names a Const[DType] parameter,
which each launch infers from its argument (one specialization per dtype)."""
import cutile as ct
from cutile import Acc, Const, DType, Mut, Tensor, f32, i32


@ct.kernel
def transpose(out: Mut[Tensor["T", ("BM", "BN")]], x: Tensor["T", (-1, -1)],
              T: Const[DType], BM: Const[int], BN: Const[int]) -> None:
    i, j = out.tile_index()
    out.store(x.load_tile((BN, BM), (j, i)).transpose())


@ct.kernel
def scale(z: Mut[Tensor["T", ("B",)]], x: Tensor["T", (-1,)], alpha: f32, T: Const[DType],
          B: Const[int]) -> None:
    z.store((ct.load_tile_like(x, z).astype(f32) * alpha).astype(T))


@ct.kernel
def convert(z: Mut[Tensor["D", ("B",)]], x: Tensor["S", (-1,)], S: Const[DType],
            D: Const[DType], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z).astype(D))


@ct.kernel
def colsum(acc: Acc[Tensor["T", ("BN",)], "add"], x: Tensor["T", (-1, "BN")],
           T: Const[DType], BM: Const[int], BN: Const[int]) -> None:
    t = x.load_tile((BM, BN), (ct.block_id(0), 0))
    acc.add(ct.sum(t, 0), (0,))


@ct.kernel
def quoted(z: "Mut[Tensor['T', (64,)]]", x: "Tensor['T', (-1,)]", T: Const[DType]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.zeros((64,), T))


@ct.kernel
def counts(h: Acc[Tensor["T", (-1,)], "add"], x: Tensor[i32, (-1,)], T: Const[DType],
           B: Const[int]) -> None:
    v = x.load_tile((B,), (ct.block_id(0),), padding=0)
    h.add_at((v,), ct.full((B,), 1, T))


@ct.kernel
def quoted_dtype(z: Mut[Tensor["f32", (64,)]], x: Tensor["i32", (-1,)]) -> None:  # as f32
    z.store(ct.load_tile_like(x, z).astype(f32))
