"""Const[str]: a string known at compile time, compared to pick a code path (Triton's string
constexpr). It is no number: arithmetic with it is an error, and its default is a string."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def picks(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], MODE: Const[str] = "fast") -> None:
    t = ct.load_tile_like(x, z)
    if MODE == "fast":
        z.store(t * 2.0)
    elif MODE != "slow":
        z.store(t)
    else:
        z.store(t + t)


@ct.kernel
def misuse(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], MODE: Const[str]) -> None:
    z.store(ct.load_tile_like(x, z) * MODE)  # E: CT211 "multiply does not accept the Const 'MODE'"


@ct.kernel
def bad_default(z: Mut[Tensor[f32, (64,)]], MODE: Const[str] = 3) -> None:  # E: CT107
    z.store(z.load())
