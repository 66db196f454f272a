"""Kernels the autotuning tests launch (the frontend reads them from this file)."""

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32


@ct.kernel
def shifted(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int],
            K: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.full((B,), K, f32))  # a tile of B: B a power of 2


@ct.kernel
def bump(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def two_outputs(a: Mut[Tensor[f32, ("B",)]], b: Mut[Tensor[f32, ("B",)]],
                x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, a)
    a.store(t)
    b.store(t)


@ct.kernel
def tally(acc: Acc[Tensor[f32, (-1,)], "add"], B: Const[int]) -> None:
    acc.add(ct.full((B,), 1.0, f32), (ct.block_id(0),))
