"""Kernels of the programmatic-dependent-launch tests (test_pdl.py): each pdl=True kernel has a
twin without it, so a chain's result can be compared with the plain chain's."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel(pdl=True)
def mix(z: Mut[Tensor[f32, ("B",)]], w: Tensor[f32, (-1,)], h: Tensor[f32, (-1,)],
        B: Const[int], N: Const[int]) -> None:
    wt = ct.load_tile_like(w, z)  # weights: no launch of the chain writes them
    ct.wait_for_predecessor()
    total = ct.sum(h.load_tile((N,), (0,)), 0)  # every block reads all of h
    z.store(wt * (total * (1.0 / N)) + ct.load_tile_like(h, z) * 0.5)


@ct.kernel
def mix_plain(z: Mut[Tensor[f32, ("B",)]], w: Tensor[f32, (-1,)], h: Tensor[f32, (-1,)],
              B: Const[int], N: Const[int]) -> None:
    wt = ct.load_tile_like(w, z)
    total = ct.sum(h.load_tile((N,), (0,)), 0)
    z.store(wt * (total * (1.0 / N)) + ct.load_tile_like(h, z) * 0.5)


@ct.kernel
def seed(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z) + 1.0)


@ct.kernel(pdl=True)
def peek(z: Mut[Tensor[f32, ("B",)]], h: Tensor[f32, (-1,)], B: Const[int]) -> None:
    early = ct.load_tile_like(h, z)
    ct.wait_for_predecessor()
    z.store(early + 1.0)


@ct.kernel
def peek_plain(z: Mut[Tensor[f32, ("B",)]], h: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(h, z) + 1.0)


@ct.kernel(pdl=True)
def scribble(z: Mut[Tensor[f32, ("B",)]], h: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.zeros((B,), f32))
    ct.wait_for_predecessor()
    z.store(ct.load_tile_like(h, z))
