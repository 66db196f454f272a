"""Spellings the analysis meets rarely: `op.__await__()` (driven by hand), `f.__call__(...)`,
`getattr(x, "name")`, `t.__getitem__(key)`. Each is what its plain form is (or a use the
analysis does not follow), and none costs the scope its other findings."""

import asyncio
import types
from collections.abc import Generator
from typing import Any

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z) * 2.0)


x = ct.ones((512,), f32)



def lost(x: ct.Tensor) -> Any:
    """(Not run: the iterator is never driven, so the launch never runs either.)"""
    a = ct.zeros((512,), f32).partition((64,))
    op = double(a, x)
    it = op.__await__()  # handed on: whoever drives it runs the launch
    a.unpartition()  # E: CT301
    return it


@types.coroutine
def by_hand(z: ct.Partition, x: ct.Tensor) -> Generator[Any, None, Any]:
    op = double(z, x)
    return (yield from op.__await__())


async def main(z: ct.Partition, x: ct.Tensor) -> Any:
    return await by_hand(z, x)


a = ct.zeros((512,), f32).partition((64,))
a, x = asyncio.run(main(a, x))
a.unpartition()

b = ct.zeros((512,), f32).partition((64,))
op = double(b, x)
op.sync.__call__()  # waits, as op.sync()
b.unpartition()  # E: CT301

c = ct.zeros((512,), f32).partition((64,))
getattr(double(c, x), "sync")()  # noqa: B009
c.unpartition()  # E: CT301

t = ct.zeros((8, 4), f32)
v = t.__getitem__(0)
w = t.__getitem__(None)  # E: CT406
q = t.partition.__call__((4, 4))
t.numpy()  # E: CT301
n = getattr(q, "num_tiles")  # noqa: B009
