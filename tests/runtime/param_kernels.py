"""Kernels whose parameter blocks the packing tests compare (scalars of each width, views)."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32, i64


@ct.kernel
def mixed(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], n: i32, m: i64, s: f32,
          h: f16, B: Const[int]) -> None:
    t = ct.load_tile_like(x, z) * s + h.astype(f32)
    z.store(t + n.astype(f32) + m.astype(f32))


@ct.kernel
def strided(z: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], y: Tensor[f32, (-1, -1)],
            k: i64, BM: Const[int], BN: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + ct.load_tile_like(y, z) + k.astype(f32))
