"""The quick start: add two vectors, one 128-element tile per block."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty)


def main() -> None:
    diagnostics = add.check()
    for d in diagnostics:
        print(d)
    if not diagnostics:
        print("add: kernel checks clean")
    _ = np


if __name__ == "__main__":
    main()
