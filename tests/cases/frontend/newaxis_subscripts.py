"""`None` in a tile subscript inserts an axis of 1 and `...` stands for the axes not named, as
NumPy's, Triton's and torch's (`offs[:, None] < m`); they mix with slices and indices."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def masked(out: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)], BM: Const[int],
           BN: Const[int]) -> None:
    m, n = x.shape
    i, j = out.tile_index()
    rows = i * BM + ct.arange(BM, i32)
    cols = j * BN + ct.arange(BN, i32)
    inside = (rows[:, None] < m) & (cols[None, :] < n)
    t = x.load_tile((BM, BN), (i, j), padding=0.0)
    out.store(ct.where(inside, t, -1.0))


@ct.kernel
def forms(out: Mut[Tensor[f32, (4, 8)]], x: Tensor[f32, (4, 8)]) -> None:
    t = x.load_tile((4, 8), (0, 0))
    a = t[None][0]  # (1, 4, 8), then (4, 8)
    b = t[..., None][:, :, 0]  # (4, 8, 1), then (4, 8)
    c = t[0:2, None, ...]  # (2, 1, 8)
    d = t[None, 1, :]  # (1, 8)
    out.store(a + b + ct.broadcast_to(c.reshape((2, 8))[0], (4, 8)) * 0.0 + d)


@ct.kernel
def wrong(out: Mut[Tensor[f32, (4, 8)]], x: Tensor[f32, (4, 8)]) -> None:
    t = x.load_tile((4, 8), (0, 0))
    out.store(t[:, :, None, 0])  # E: CT203
