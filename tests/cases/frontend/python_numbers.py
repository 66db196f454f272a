"""Python's own functions of numbers on compile-time numbers fold as at the host
(`1 / math.sqrt(D)`, `min(D, 32)`); on tiles they are host code, with the cutile op to use.
`t.T` transposes a rank-2 tile, as NumPy's and torch's does."""

import math

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def folded(out: Mut[Tensor[f32, (1, "D")]], q: Tensor[f32, (-1, "D")], D: Const[int]) -> None:
    scale = 1 / math.sqrt(D)
    width = min(D, 32) + max(D // 2, 4, 8) + abs(-D)
    steps = math.ceil(math.log2(D)) + math.floor(D / 3)
    out.store(ct.load_tile_like(q, out) * scale + width + steps)


@ct.kernel
def transposed(out: Mut[Tensor[f32, (32, 16)]], x: Tensor[f32, (16, 32)]) -> None:
    out.store(x.load_tile((16, 32), (0, 0)).T)


@ct.kernel
def on_tiles(out: Mut[Tensor[f32, (1, 64)]], x: Tensor[f32, (-1, 64)]) -> None:
    t = ct.load_tile_like(x, out)
    r = math.sqrt(t)  # E: CT104 "'math.sqrt' takes compile-time numbers in a kernel"
    m = min(t, 3.0)  # E: CT104 "use ct.min(t, axis) or ct.minimum(a, b)"
    n = t.size  # E: CT109 "has no attribute 'size' (it has: shape, dtype, ndim, T)"
    out.store(r + m + n)


def make_scaled(scale: float) -> object:
    """A kernel factory: the kernel cannot see the factory's variables."""

    @ct.kernel
    def scaled(z: Mut[Tensor[f32, (64,)]]) -> None:
        z.store(z.load() * scale)  # E: CT103 "'scale' is a variable of the enclosing function 'make_scaled'"

    return scaled
