"""A type error inside a helper is reported once, in the helper, with the call site as a note."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.function
def add_half(t):
    return t + ct.zeros((64,), f16)  # E: CT202


@ct.function
def bad_syntax(t):
    try:  # E: CT101
        pass
    except ValueError:
        pass
    return [t]  # E: CT102


@ct.kernel
def use(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(add_half(t))
    z.store(add_half(t) * 2.0)
