"""y = a * x + y with a scalar parameter, updating y in place through its partition."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def saxpy(y: Mut[Tensor[f32, ("B",)]], a: f32, x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    y.store(a * ct.load_tile_like(x, y) + y.load())


def main(n: int = 1 << 20, tile: int = 2048) -> None:
    x = ct.randn((n,), f32, seed=0)
    y0 = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = ct.from_numpy(y0).partition((tile,))
    y, _, x = saxpy(y, 2.5, x).sync()
    got = y.unpartition().numpy()
    np.testing.assert_allclose(got, 2.5 * x.numpy() + y0, rtol=1e-5, atol=1e-6)
    print(f"saxpy: {n} elements on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
