import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    i, j = z.tile_index()
    z.store(x.load_tile((32, 32), (j, i)).transpose())


@ct.kernel
def bad(z: Mut[Tensor[f32, (32, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
    i, j = z.tile_index()
    t = x.load_tile((32, 32), (i, j))
    z.store(t, (i, j))  # E: CT407
    z.store(t, z.tile_index())  # E: CT407
    a, b, c = z.tile_index()  # E: CT211 "tuple of 3"
    it = z.tiles()  # E: CT113
    k = x.tile_index()  # E: CT109
