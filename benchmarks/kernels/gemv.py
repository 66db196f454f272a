"""Decode GEMV, y = x @ W^T (nn.Linear without bias): bf16 in, f32 accumulate, bf16 out.

x: (M, K) with a few rows (M = 1 or 16), W: (N, K), y: (M, N). The work is streaming W once, so
each block owns a (M, BN) slab of y and walks K in BK-wide tiles of W.
- `gemv`: products on the CUDA cores; a (BN, BK) f32 accumulator is reduced once at the end
  (for M = 1, where a matrix instruction would waste most of its rows);
- `gemv_pipelined`: `gemv` with tileiras' `latency` hint on both loads (a longer latency keeps
  more TMA stages in flight: at 32x128 tiles and occupancy 3, 27 KiB of shared memory at
  latency 1, 73 KiB at 6; without the hint a 32x256 tile gets one stage, 18 KiB);
- `gemv_mma`: the same walk with `ct.mma` on (M, BK) x (BK, BN) tiles (for M = 16).
Modelled on examples/gemm.py; tile shapes come from benchmarks/suite/tuning.py.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32


@ct.function
def _gemv(y, x, w, BN, BK, lat):  # type: ignore[no-untyped-def]
    """y = x @ W^T; `lat` is the loads' latency hint (None: none, the cubin of no hint)."""
    _, j = y.tile_index()
    px = x.partition((1, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((BN, BK), f32)
    for k in range(ct.num_tiles(pw, 1)):
        wt = pw.load((j, k), latency=lat).astype(f32)
        acc = acc + wt * px.load((0, k), latency=lat).astype(f32)
    y.store(ct.sum(acc, 1).reshape((1, BN)).astype(bf16))


@ct.kernel
def gemv(y: Mut[Tensor[bf16, (1, "BN")]], x: Tensor[bf16, (1, -1)], w: Tensor[bf16, (-1, -1)],
         BN: Const[int], BK: Const[int]) -> None:
    _gemv(y, x, w, BN, BK, None)


@ct.kernel
def gemv_pipelined(y: Mut[Tensor[bf16, (1, "BN")]], x: Tensor[bf16, (1, -1)],
                   w: Tensor[bf16, (-1, -1)], BN: Const[int], BK: Const[int],
                   LAT: Const[int]) -> None:
    _gemv(y, x, w, BN, BK, LAT)


@ct.kernel
def gemv_mma(y: Mut[Tensor[bf16, ("M", "BN")]], x: Tensor[bf16, ("M", -1)],
             w: Tensor[bf16, (-1, -1)], M: Const[int], BN: Const[int], BK: Const[int]) -> None:
    _, j = y.tile_index()
    px = x.partition((M, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((M, BN), f32)
    for k in range(ct.num_tiles(pw, 1)):
        acc = ct.mma(px.load((0, k)), pw.load((j, k)).transpose(), acc)
    y.store(acc.astype(bf16))
