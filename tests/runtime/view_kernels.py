"""Kernels the host-view tests launch (a file of their own: the frontend reads source)."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def double2(z: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
            BN: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


@ct.kernel
def inc2(z: Mut[Tensor[f32, ("BM", "BN")]], BM: Const[int], BN: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def inc1(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(z.load() + 1.0)


@ct.kernel
def pair2(a: Mut[Tensor[f32, ("BM", "BN")]], b: Mut[Tensor[f32, ("BM", "BN")]], BM: Const[int],
          BN: Const[int]) -> None:
    a.store(ct.full((BM, BN), 1.0, f32))
    b.store(ct.full((BM, BN), 2.0, f32))


@ct.kernel
def add_one(y: Mut[Tensor[f32, (8,)]], x: Tensor[f32, (-1,)]) -> None:
    y.store(ct.load_tile_like(x, y) + 1.0)
