"""Conditions known at compile time (literals, Const parameters) pick one branch: the other
is never compiled, so its types need not agree."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32

DEBUG = False


@ct.kernel
def static(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int],
           USE_F16: Const[bool]) -> None:
    t = ct.load_tile_like(x, z)
    if DEBUG:
        t = t.astype(f16)
    if B > 64:
        t = t * 2.0
    else:
        t = t * 3.0
    if USE_F16:
        u = t.astype(f16).astype(f32)
    else:
        u = t
    if USE_F16 and B > 64:
        u = u + 1.0
    z.store(t + u)
    if True:
        w = t
    z.store(w)


# A number chosen by a Const condition is a number known once the Consts are: a tile width
# rounded up (Triton's next_power_of_2 habit), by an if statement or an expression, a tuple too.
@ct.kernel
def chosen_widths(z: Mut[Tensor[f32, (1, 128)]], x: Tensor[f32, (-1, "E")],
                  E: Const[int]) -> None:
    TE = 64 if E <= 64 else 128
    if E <= 32:
        TW = 32
    elif E <= 64:
        TW = 64
    else:
        TW = 128
    SHAPE = (1, 64) if E <= 64 else (1, 128)
    a = x.load_tile((1, TE), (0, 0))
    b = x.load_tile((1, TW), (0, 0))
    c = x.load_tile(SHAPE, (0, 0))
    z.store(ct.broadcast_to(ct.sum(a, 1, keepdims=True) + ct.sum(b, 1, keepdims=True)
                            + ct.sum(c, 1, keepdims=True), (1, 128)))
