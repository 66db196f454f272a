"""LayerNorm forward: y = (x - mean) / sqrt(var + eps) * w + b, over the last axis."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32


@ct.function
def normalize(t, eps, n):  # type: ignore[no-untyped-def]
    """Rows of `t` normalized over their first `n` columns (the rest is padding: zeros)."""
    mean = ct.sum(t, 1, keepdims=True) / n
    centered = t - mean
    width = t.shape[1]
    if width != n:  # a ragged row: its padding, centered, is -mean and must not enter the var
        centered = ct.where(ct.arange(width, i32).reshape((1, width)) < n, centered, 0.0)
    var = ct.sum(centered * centered, 1, keepdims=True) / n
    return centered * ct.rsqrt(var + eps)


@ct.kernel
def layer_norm(y: Mut[Tensor[bf16, ("BM", "N")]], x: Tensor[bf16, (-1, "N")],
               w: Tensor[bf16, ("N",)], b: Tensor[bf16, ("N",)], eps: f32, BM: Const[int],
               N: Const[int]) -> None:
    TN = y.tile_shape[1]  # N rounded up to a power of two (a tile's extents are)
    t = x.load_tile((BM, TN), (y.tile_index()[0], 0)).astype(f32)
    weight = w.load_tile((TN,), 0).astype(f32)
    bias = b.load_tile((TN,), 0).astype(f32)
    y.store((normalize(t, eps, N) * weight + bias).astype(bf16))


def reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * w + b)


def main(m: int = 256, n: int = 1024, rows_per_block: int = 2, eps: float = 1e-5) -> None:
    rng = np.random.default_rng(0)
    x = ct.from_numpy((rng.standard_normal((m, n)) * 2 + 1).astype(np.float32), bf16)  # mean 1
    w = ct.randn((n,), bf16, seed=1)
    b = ct.randn((n,), bf16, seed=2)
    y = ct.zeros((m, n), bf16).partition((rows_per_block, n))
    y, x, w, b, _ = layer_norm(y, x, w, b, eps).sync()
    got = y.unpartition().numpy().astype(np.float32)
    xf, wf, bf = (t.numpy().astype(np.float32) for t in (x, w, b))
    np.testing.assert_allclose(got, reference(xf, wf, bf, eps), atol=5e-2, rtol=2e-2)
    print(f"layer_norm: {m}x{n} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
