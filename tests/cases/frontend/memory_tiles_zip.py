"""`for a_slab, b_slab in zip(a.tiles(), b.tiles())`: a persistent kernel walks the slabs of
several Mut parameters together, the same tile of each (a row of y with its mean and rstd)."""
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def layer_norm_rows(y: Mut[Tensor[f32, (1, "N")]], mean: Mut[Tensor[f32, (1, 1)]],
                    rstd: Mut[Tensor[f32, (1, 1)]], x: Tensor[f32, (-1, "N")],
                    N: Const[int]) -> None:
    for yt, mt, rt in zip(y.tiles(), mean.tiles(), rstd.tiles(), strict=True):
        row = ct.load_tile_like(x, yt)
        mu = ct.sum(row, 1, keepdims=True) / N
        r = 1.0 / ct.sqrt(ct.sum((row - mu) * (row - mu), 1, keepdims=True) / N + 1e-5)
        yt.store((row - mu) * r)
        mt.store(mu)
        rt.store(r)
        i, j = yt.tile_index()
        skip = i > 1000
        if skip:
            continue


@ct.kernel
def bad_forms(a: Mut[Tensor[f32, (1, 8)]], b: Mut[Tensor[f32, (1, 1)]],
              x: Tensor[f32, (-1, 8)]) -> None:
    for at in zip(a.tiles(), b.tiles()):  # E: CT113 "one name per slab"
        pass
    for at, bt, ct_ in zip(a.tiles(), b.tiles()):  # E: CT113 "one name per slab"
        pass
    for at, bt in zip(a.tiles(), a.tiles()):  # E: CT211 "twice"
        pass
    for at, t in zip(a.tiles(), (1, 2)):  # E: CT113 "zip() takes tiles() walks only together"
        pass
    for k, at in enumerate(a.tiles()):  # E: CT113 "inside enumerate()"
        pass
    for at, bt in zip(a.tiles(), b.tiles()):
        a.store(ct.load_tile_like(x, at))  # E: CT409
        bt.store(ct.zeros((1, 1), f32))
    for at, bt in zip(a.tiles(), x.tiles()):  # E: CT211
        pass
