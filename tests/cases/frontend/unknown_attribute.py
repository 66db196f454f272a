import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.sqroot(t)  # E: CT109 "cutile has no operation 'sqroot'; did you mean ct.sqrt?"
    b = t.sum(0)  # E: CT109 "A tile has no method 'sum' (it has: astype, bitcast, reshape, transpose)"
    c = z.partition((64,))  # E: CT109 "load, store, tile_index"
    d = x.tile_index()  # E: CT109
    e = ct.Tensor  # E: CT211
    f = ct.kernel(t)  # E: CT104
    z.store(a + b + c + d + e + f)
