"""@ct.function helpers: unannotated, with defaults and keywords, defined before or after use."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.function
def scale(t, factor=2.0):
    return t * factor


@ct.kernel
def use(z: Mut[Tensor[f32, ("B",)]], h: Mut[Tensor[f16, ("B",)]], x: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(scale(t) + scale(t, 0.5) + scale(t, factor=3.0) + scale(factor=1, t=t))
    h.store(scale(t.astype(f16)))
    z.store(clamp(t, hi=1.0) + fill(B))
    a, b = split(t)
    z.store(a + b)


@ct.function
def clamp(t, lo=0.0, hi=6.0):
    return ct.minimum(ct.maximum(t, lo), hi)


@ct.function
def fill(n):
    return ct.zeros((n,), f32)


@ct.function
def split(t: ct.TileValue):
    return t * 0.5, t * 0.5


# A helper indexing its parameter (a sub-tile, a tuple item): unknown when the helper is checked
# on its own, known at each call.
@ct.function
def first_half(t, n):
    return t[:, 0:n]


@ct.function
def second(parts):
    return parts[1]


@ct.kernel
def slices_in_helpers(z: Mut[Tensor[f32, (1, "B")]], x: Tensor[f32, (-1, -1)],
                      B: Const[int], S: Const[int]) -> None:
    row = x.load_tile((1, 2 * B), (z.tile_index()[0], 0))
    parts = ct.split(row, S, axis=1)  # S parts: a tuple known once S is
    z.store(first_half(row, B) + ct.broadcast_to(ct.sum(second(parts) * parts[0], 1,
                                                        keepdims=True), (1, B)))
