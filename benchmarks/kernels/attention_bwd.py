"""A variant of the dK/dV kernel of examples/attention_backward.py for the suite (row 12).

Same arguments, tiles and result as `attention_bwd_dkdv`. It computes the transposed scores
S^T = K Q^T (BN x BM) the way FlashAttention-2's dK/dV loop does, so P^T and dS^T come out in
the layout their products with dO and Q need: the transposes are of loaded Q and dO tiles
rather than of the f32/bf16 P and dS tiles in registers, and LSE and Delta are read as rows
(1, BM). On sm_90 (D = 128, causal) it compiles to 256 threads without spills at 64x64 and,
with `worker_warps=8`, at 64x64, 128x64 and 64x128 (168 registers); the example's form gets 384
threads from tileiras even without the hint. Tile shapes and hints: tuning.py.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

LOG2E = 1.4426950408889634


@ct.kernel(occupancy=1)
def attention_bwd_dkdv_t(dk: Mut[Tensor[bf16, (1, "BN", "D")]],
                         dv: Mut[Tensor[bf16, (1, "BN", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                         k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")],
                         do: Tensor[bf16, (-1, -1, "D")], lse: Tensor[f32, (-1, -1)],
                         delta: Tensor[f32, (-1, -1)], scale: f32, BM: Const[int],
                         BN: Const[int], D: Const[int], CAUSAL: Const[bool]) -> None:
    h, j, _ = dk.tile_index()
    kt = ct.load_tile_like(k, dk).reshape((BN, D))
    vt = ct.load_tile_like(v, dk).reshape((BN, D))
    pq = q.partition((1, BM, D))
    pdo = do.partition((1, BM, D))
    pl = lse.partition((1, BM))
    pd = delta.partition((1, BM))
    qs = scale * LOG2E
    dk_acc = ct.zeros((BN, D), f32)
    dv_acc = ct.zeros((BN, D), f32)
    lo = 0
    if CAUSAL:
        lo = (j * BN) // BM  # earlier query blocks see none of these keys
    keys = (j * BN + ct.arange(BN, i32)).reshape((BN, 1))
    for i in range(lo, ct.num_tiles(pq, 1)):
        qt = pq.load((h, i, 0)).reshape((BM, D))
        dot = pdo.load((h, i, 0)).reshape((BM, D))
        pt = ct.exp2(ct.mma(kt, qt.transpose(), ct.zeros((BN, BM), f32)) * qs - pl.load((h, i)))
        if CAUSAL:
            queries = (i * BM + ct.arange(BM, i32)).reshape((1, BM))
            pt = ct.where(keys <= queries, pt, 0.0)
        dv_acc = ct.mma(pt.astype(bf16), dot, dv_acc)
        dpt = ct.mma(vt, dot.transpose(), ct.zeros((BN, BM), f32))
        dst = pt * (dpt - pd.load((h, i)))
        dk_acc = ct.mma(dst.astype(bf16), qt, dk_acc)
    dk.store((dk_acc * scale).astype(bf16).reshape((1, BN, D)))
    dv.store(dv_acc.astype(bf16).reshape((1, BN, D)))
