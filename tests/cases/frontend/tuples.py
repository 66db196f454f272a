import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def tuples(z: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    idx = z.tile_index()
    i, j = idx
    pair = (i, j)
    shape = (16, 16)
    r, c = shape
    t = x.load_tile(shape, pair) + x.load_tile((r, c), (idx[1], idx[0]))
    a, (b, d) = t, (t, t)
    z.store(a + b + d)


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    a, b = t  # E: CT211 "unpacking"
    c, d, e = (t, t)  # E: CT211
    pair = (t, t)
    f = pair[2]  # E: CT209
    g = pair + 1.0  # E: CT211 "a tuple"
    t.x = 1  # E: CT101 "assignment to attributes"
    z.store(t)
