"""LayerNorm of rows of any width, walking each row in tiles, and writing Mean and Rstd.

A training forward pass keeps each row's mean and 1/std for the backward pass. Three outputs
of different shapes share one grid: `y` in slabs of one full row, `mean` and `rstd` in slabs of
one element, so block r owns row r of each. The row is walked in BN-wide tiles three times
(sum, sum of squared deviations, normalize), so any width runs in the same registers.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def layer_norm_rows(y: Mut[Tensor[f32, (1, -1)]], mean: Mut[Tensor[f32, (1, 1)]],
                    rstd: Mut[Tensor[f32, (1, 1)]], x: Tensor[f32, (-1, -1)],
                    w: Tensor[f32, (-1,)], b: Tensor[f32, (-1,)], eps: f32,
                    BN: Const[int]) -> None:
    row = y.tile_index()[0]
    n = y.shape[1]
    tiles = ct.cdiv(n, BN)
    total = ct.zeros((1, BN), f32)
    for j in range(tiles):
        total = total + x.load_tile((1, BN), (row, j))  # zero past the row's end
    mu = ct.sum(total, 1, keepdims=True) / n.astype(f32)
    squares = ct.zeros((1, BN), f32)
    for j in range(tiles):
        cols = ct.arange(BN).reshape((1, BN)) + j * BN
        d = ct.where(cols < n, x.load_tile((1, BN), (row, j)) - mu, 0.0)
        squares = squares + d * d
    r = ct.rsqrt(ct.sum(squares, 1, keepdims=True) / n.astype(f32) + eps)
    mean.store(mu)
    rstd.store(r)
    for j in range(tiles):
        t = (x.load_tile((1, BN), (row, j)) - mu) * r
        scale = w.load_tile((BN,), (j,)).reshape((1, BN))
        shift = b.load_tile((BN,), (j,)).reshape((1, BN))
        y.store(t * scale + shift, (0, j))


def reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mu = x.mean(axis=1, keepdims=True)
    r = 1.0 / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + eps)
    return (x - mu) * r * w + b, mu, r


def run(rows: int, width: int, bn: int, eps: float = 1e-5) -> None:
    rng = np.random.default_rng(width)
    xa = (rng.standard_normal((rows, width)) * 2 + 1).astype(np.float32)
    wa, ba = (rng.standard_normal(width).astype(np.float32) for _ in range(2))
    y = ct.zeros((rows, width), f32).partition((1, width))
    mean = ct.zeros((rows, 1), f32).partition((1, 1))
    rstd = ct.zeros((rows, 1), f32).partition((1, 1))
    y, mean, rstd, *_ = layer_norm_rows(y, mean, rstd, ct.from_numpy(xa), ct.from_numpy(wa),
                                        ct.from_numpy(ba), eps, BN=bn).sync()
    want = reference(xa.astype(np.float64), wa, ba, eps)
    for got, exp in zip((y, mean, rstd), want, strict=True):
        np.testing.assert_allclose(got.unpartition().numpy(), exp, rtol=1e-4, atol=1e-4)
    print(f"layer_norm_rows: {rows}x{width} in tiles of {bn} on {ct.backend_name()}, "
          f"with mean and rstd, ok")


def main(cases: tuple[tuple[int, int, int], ...] = ((8, 5000, 1024), (16, 700, 256)),
         ) -> None:
    """Each case is (rows, width, tile width). The defaults: rows wider than a tile, and no
    power of two."""
    for rows, width, bn in cases:
        run(rows, width, bn)


if __name__ == "__main__":
    main()
