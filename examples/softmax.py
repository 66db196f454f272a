"""Row softmax: each block owns BM full rows, reads bf16, computes in f32, writes bf16.

Written for speed: exp2 with log2(e) folded into one multiply-add per element (`ct.exp` adds a
range reduction of about six instructions), and one reciprocal per row times each element
(`e / s` is an IEEE division: a check and a slow-path call per element). A row width N that is
no power of two loads as a tile of the next one; its padding is masked to -inf (exp2 of it is 0),
at compile time only for such widths.
"""

import math

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

LOG2E = 1.4426950408889634


@ct.kernel
def softmax(out: Mut[Tensor[bf16, ("BM", "N")]], x: Tensor[bf16, (-1, "N")], BM: Const[int],
            N: Const[int]) -> None:
    TN = out.tile_shape[1]  # N rounded up to a power of two (a tile's extents are)
    rows = x.load_tile((BM, TN), (out.tile_index()[0], 0)).astype(f32)
    if TN != N:  # a ragged row: its padding (zeros) must not enter the max or the sum
        rows = ct.where(ct.arange(TN, i32).reshape((1, TN)) < N, rows, -math.inf)
    top = ct.max(rows, 1, keepdims=True) * LOG2E
    e = ct.exp2(rows * LOG2E - top)
    out.store((e * (1.0 / ct.sum(e, 1, keepdims=True))).astype(bf16))


# Rows per block and code-generation hints that suit a GPU depend on the row width, so the
# launch goes through the autotuner: on the GPU it times these per input shape (CUDA events) and
# caches the choice on disk next to the compiled kernels; on the interpreter it takes the first.
# -1 in a tile keeps the caller's extent (the whole row).
softmax_tuned = ct.autotune(softmax, key=["x"], configs=[
    ct.Config(tile=(4, -1)),
    ct.Config(tile=(1, -1), occupancy=2),
    ct.Config(tile=(2, -1), occupancy=2, worker_warps=8),
    ct.Config(tile=(2, -1), occupancy=4),
])


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def main(m: int = 256, n: int = 1024, rows_per_block: int = 4) -> None:
    x = ct.randn((m, n), bf16, seed=0)
    out = ct.zeros((m, n), bf16).partition((rows_per_block, n))
    out, x = softmax_tuned(out, x).sync()
    got = out.unpartition().numpy().astype(np.float32)
    np.testing.assert_allclose(got, reference(x.numpy().astype(np.float32)), atol=2e-3)
    print(f"softmax: {m}x{n} on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
