"""RMSNorm forward: y = x / sqrt(mean(x^2) + eps) * w, over the last axis."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32


@ct.kernel
def rms_norm(y: Mut[Tensor[bf16, ("BM", "N")]], x: Tensor[bf16, (-1, "N")],
             w: Tensor[bf16, ("N",)], eps: f32, BM: Const[int], N: Const[int]) -> None:
    TN = y.tile_shape[1]  # N rounded up to a power of two (a tile's extents are)
    t = x.load_tile((BM, TN), (y.tile_index()[0], 0)).astype(f32)  # padding 0: adds nothing
    mean_sq = ct.sum(t * t, 1, keepdims=True) / N
    scale = w.load_tile((TN,), 0).astype(f32)
    y.store((t * ct.rsqrt(mean_sq + eps) * scale).astype(bf16))


def reference(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return np.asarray(x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w)


def main(m: int = 256, n: int = 1024, rows_per_block: int = 2, eps: float = 1e-6) -> None:
    x = ct.randn((m, n), bf16, seed=0)
    w = ct.randn((n,), bf16, seed=1)
    y = ct.zeros((m, n), bf16).partition((rows_per_block, n))
    y, x, w, _ = rms_norm(y, x, w, eps).sync()
    got = y.unpartition().numpy().astype(np.float32)
    want = reference(x.numpy().astype(np.float32), w.numpy().astype(np.float32), eps)
    np.testing.assert_allclose(got, want, atol=3e-2, rtol=2e-2)
    print(f"rms_norm: {m}x{n} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
