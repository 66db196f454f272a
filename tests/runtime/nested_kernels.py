"""Kernels defined inside a function (a factory, a test) or a class body."""

import cutile as ct
from cutile import Mut, Tensor, f32


def make_scale():  # type: ignore[no-untyped-def]
    @ct.kernel
    def scale(y: Mut[Tensor[f32, (8, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
        y.store(ct.load_tile_like(x, y) * 2.0)

    return scale


def make_shift():  # type: ignore[no-untyped-def]
    if True:  # blocks inside the factory make no scope of their own
        @ct.kernel
        def scale(y: Mut[Tensor[f32, (8, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
            y.store(ct.load_tile_like(x, y) + 1.0)

    return scale


class Ops:
    @ct.kernel
    def negate(y: Mut[Tensor[f32, (8, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
        y.store(-ct.load_tile_like(x, y))


def make_with_local():  # type: ignore[no-untyped-def]
    factor = 3.0

    @ct.kernel
    def uses_local(y: Mut[Tensor[f32, (8, 32)]], x: Tensor[f32, (-1, -1)]) -> None:
        y.store(ct.load_tile_like(x, y) * factor)  # cutile: ignore[CT103] (on purpose)

    return uses_local
