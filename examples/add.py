"""The quick start: z = x + y, one 1024-element tile per block."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], y: Tensor[f32, (-1,)],
        B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    ty = ct.load_tile_like(y, z)
    z.store(tx + ty)


def main(n: int = 1 << 20, tile: int = 1024) -> None:
    x = ct.randn((n,), f32, seed=0)
    y = ct.randn((n,), f32, seed=1)
    z = ct.zeros((n,), f32).partition((tile,))
    z, x, y = add(z, x, y).sync()  # grid = n / tile blocks; B inferred from the partition
    got = z.unpartition().numpy()
    np.testing.assert_allclose(got, x.numpy() + y.numpy(), rtol=1e-6)
    print(f"add: {n} elements on {ct.backend_name()}, max error "
          f"{np.abs(got - (x.numpy() + y.numpy())).max():.1e}")


if __name__ == "__main__":
    main()
