"""LayerNorm backward: dX per row, and dW, dB summed over all rows with accumulators.

Forward: y = xhat * w + b with xhat = (x - mean) * rstd over the last axis. Backward, for
upstream gradient dy:
- dX = rstd * (w*dy - mean(w*dy*xhat) * xhat - mean(w*dy)), per row: each block owns BM rows
  of dX (a `Mut` slab);
- dW = sum over rows of dy * xhat and dB = sum over rows of dy: every block adds its rows'
  column sums into `dw` and `db`, which are `Acc[..., "add"]` parameters (atomic adds on the
  GPU; the order of the float additions is unspecified, so results match to rounding).
"""

import numpy as np

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32


@ct.kernel
def layernorm_backward(dx: Mut[Tensor[f32, ("BM", "N")]], dw: Acc[Tensor[f32, ("N",)], "add"],
                       db: Acc[Tensor[f32, ("N",)], "add"], x: Tensor[f32, (-1, "N")],
                       dy: Tensor[f32, (-1, "N")], w: Tensor[f32, ("N",)],
                       mean: Tensor[f32, (-1,)], rstd: Tensor[f32, (-1,)], BM: Const[int],
                       N: Const[int]) -> None:
    i, _ = dx.tile_index()
    TN = dx.tile_shape[1]  # N rounded up to a power of two (a tile's extents are)
    t = x.load_tile((BM, TN), (i, 0))
    g = dy.load_tile((BM, TN), (i, 0))  # past the end (rows or columns) 0: adds nothing below
    mu = mean.load_tile((BM,), (i,)).reshape((BM, 1))
    rs = rstd.load_tile((BM,), (i,)).reshape((BM, 1))
    xhat = (t - mu) * rs
    wdy = g * w.load_tile((TN,), (0,))
    c1 = ct.sum(xhat * wdy, 1, keepdims=True) / N
    c2 = ct.sum(wdy, 1, keepdims=True) / N
    dx.store((wdy - (xhat * c1 + c2)) * rs)
    dw.add(ct.sum(g * xhat, 0), (0,))
    db.add(ct.sum(g, 0), (0,))


def reference(x: np.ndarray, dy: np.ndarray, w: np.ndarray, eps: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(dx, dw, db, mean, rstd) in float64."""
    x, dy, w = (a.astype(np.float64) for a in (x, dy, w))
    mean = x.mean(1)
    rstd = 1.0 / np.sqrt(x.var(1) + eps)
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = dy * w
    dx = rstd[:, None] * (wdy - (xhat * (xhat * wdy).mean(1, keepdims=True)
                                 + wdy.mean(1, keepdims=True)))
    return dx, (dy * xhat).sum(0), dy.sum(0), mean, rstd


def main(m: int = 203, n: int = 256, rows_per_block: int = 8, eps: float = 1e-5) -> None:
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((m, n)).astype(np.float32)
    dys = rng.standard_normal((m, n)).astype(np.float32)
    ws = rng.standard_normal(n).astype(np.float32)
    want_dx, want_dw, want_db, mean, rstd = reference(xs, dys, ws, eps)
    dx = ct.zeros((m, n), f32).partition((rows_per_block, n))
    dw = ct.zeros((n,), f32)
    db = ct.zeros((n,), f32)
    dx, dw, db, *_ = layernorm_backward(
        dx, dw, db, ct.from_numpy(xs), ct.from_numpy(dys), ct.from_numpy(ws),
        ct.from_numpy(mean.astype(np.float32)), ct.from_numpy(rstd.astype(np.float32))).sync()
    np.testing.assert_allclose(dx.unpartition().numpy(), want_dx, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(dw.numpy(), want_dw, rtol=1e-3, atol=1e-2)
    np.testing.assert_allclose(db.numpy(), want_db, rtol=1e-3, atol=1e-2)
    print(f"layernorm_backward: {m}x{n} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
