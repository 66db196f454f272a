"""Tile indices provably outside a partition whose extent is static (CT404): the checker reports
them inside the kernel, and the first launch of that kernel fails with the same code at the same
line. In-range loops and dynamic extents run (a dynamic extent is not judged at all)."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def window(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)]) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    for k in range(4):
        acc = acc + p.load((k,))
    z.store(acc)


@ct.kernel
def past_the_end(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)]) -> None:
    p = x.partition((64,))
    acc = ct.zeros((64,), f32)
    for k in range(5):
        acc = acc + p.load((k,))  # E: CT404
    z.store(acc + p.load(-1))  # E: CT404


@ct.kernel
def dynamic(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    p = x.partition((64,))
    z.store(p.load((3,)))


x = ct.ones((256,), f32)
z = ct.zeros((128,), f32).partition((64,))
z, x = window(z, x).sync()
z, x = dynamic(z, x).sync()
z, x = past_the_end(z, x).sync()
