"""Tensor annotations may name module-level int constants in their shapes (a Triton or cuTile
port's `BM, BN = 64, 64`), or be one such tuple; other names are CT107."""
import numpy as np

import cutile as ct
from cutile import Acc, Mut, Tensor, f32, i32

BM, BN = 16, 32
NBINS = 1 << 3
SHAPE = (BM, BN)
TABLE = np.zeros(4)


@ct.kernel
def ported(z: Mut[Tensor[f32, (BM, BN)]], h: Acc[Tensor[i32, (NBINS,)], "add"],
           x: Tensor[f32, (-1, BN)], w: Mut[Tensor[f32, SHAPE]]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(t * 2.0)
    w.store(t)
    h.add_at((ct.arange(NBINS, i32),), 1)


@ct.kernel
def unknown_entry(z: Mut[Tensor[f32, (BM, TABLE)]]) -> None:  # E: CT107 "not TABLE"
    pass


@ct.kernel
def unknown_shape(z: Mut[Tensor[f32, TABLE]]) -> None:  # E: CT107 "must be a tuple"
    pass
