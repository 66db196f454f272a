"""A variant of the dK/dV kernel of examples/attention_backward.py for the suite (row 12).

Same arguments, tiles and result as `attention_bwd_dkdv`. It computes the transposed scores
S^T = K Q^T (BN x BM) the way FlashAttention-2's dK/dV loop does, so P^T and dS^T come out in
the layout their products with dO and Q need: the transposes are of loaded Q and dO tiles
rather than of the f32/bf16 P and dS tiles in registers, and LSE and Delta are read as rows
(1, BM). On sm_90 (D = 128, causal) it compiles to 256 threads without spills at 64x64 and,
with `worker_warps=8`, at 64x64, 128x64 and 64x128 (168 registers); the example's form gets 384
threads from tileiras even without the hint. Tile shapes and hints: tuning.py.
"""

from typing import Any

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, bf16, f32, i32

LOG2E = 1.4426950408889634


@ct.function
def query_blocks(q, do, lse, delta, BM, D):  # type: ignore[no-untyped-def]
    """Q, dO, LSE and Delta cut into query blocks of BM rows (per head)."""
    return (q.partition((1, BM, D)), do.partition((1, BM, D)), lse.partition((1, BM)),
            delta.partition((1, BM)))


@ct.function
def grads_t(kt, vt, qt, pdo, pl, pd, h, i, qs, keys, dk_acc, dv_acc, BM, BN, D,  # type: ignore[no-untyped-def]
            CAUSAL):
    """One query block `i` of the dK/dV loop in the transposed form: P^T and dS^T (BN x BM)
    from the scores, LSE and Delta, dV += P^T dO and dK += dS^T Q; returns the accumulators
    and dS^T in bf16 (zero above the diagonal if CAUSAL)."""
    dot = pdo.load((h, i, 0)).reshape((BM, D))
    pt = ct.exp2(ct.mma(kt, qt.transpose(), ct.zeros((BN, BM), f32)) * qs - pl.load((h, i)))
    if CAUSAL:
        queries = (i * BM + ct.arange(BM, i32)).reshape((1, BM))
        pt = ct.where(keys <= queries, pt, 0.0)
    dv_acc = ct.mma(pt.astype(bf16), dot, dv_acc)
    dst = pt * (ct.mma(vt, dot.transpose(), ct.zeros((BN, BM), f32)) - pd.load((h, i)))
    dst = dst.astype(bf16)
    return ct.mma(dst, qt, dk_acc), dv_acc, dst


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
    pq, pdo, pl, pd = query_blocks(q, do, lse, delta, BM, D)
    qs = scale * LOG2E
    dk_acc = ct.zeros((BN, D), f32)
    dv_acc = ct.zeros((BN, D), f32)
    lo = 0
    if CAUSAL:
        lo = (j * BN) // BM  # earlier query blocks see none of these keys
    keys = (j * BN + ct.arange(BN, i32)).reshape((BN, 1))
    for i in range(lo, ct.num_tiles(pq, 1)):
        qt = pq.load((h, i, 0)).reshape((BM, D))
        dk_acc, dv_acc, _ds = grads_t(kt, vt, qt, pdo, pl, pd, h, i, qs, keys, dk_acc, dv_acc,
                                      BM, BN, D, CAUSAL)
    dk.store((dk_acc * scale).astype(bf16).reshape((1, BN, D)))
    dv.store(dv_acc.astype(bf16).reshape((1, BN, D)))


# The fused backward (FlashAttention-2's and cuDNN's form): one kernel per key block computes
# dK and dV as `attention_bwd_dkdv_t` does and adds each query block's dS K into a float32
# dQ that every block may add into (an `Acc`: atomic adds on the GPU, so dQ's sum order is
# unspecified), instead of a second kernel that recomputes P and dP per query block. The chain:
# Delta and a zeroed dQ (`attention_bwd_prepare`), the fused kernel, then dQ scaled to bf16
# (`attention_bwd_dq_cast`).


@ct.kernel
def attention_bwd_prepare(delta: Mut[Tensor[f32, (1, "BM")]],
                          dq_acc: Mut[Tensor[f32, (1, "BM", "D")]],
                          o: Tensor[bf16, (-1, -1, "D")], do: Tensor[bf16, (-1, -1, "D")],
                          BM: Const[int], D: Const[int]) -> None:
    """Delta = rowsum(dO * O) per query row, and this query block's rows of dQ set to zero."""
    ot = ct.load_tile_like(o, dq_acc).astype(f32)
    dot = ct.load_tile_like(do, dq_acc).astype(f32)
    delta.store(ct.sum(ot * dot, 2))
    dq_acc.store(ct.zeros((1, BM, D), f32))


@ct.kernel(occupancy=1)
def attention_bwd_fused(dk: Mut[Tensor[bf16, (1, "BN", "D")]],
                        dv: Mut[Tensor[bf16, (1, "BN", "D")]],
                        dq_acc: Acc[Tensor[f32, (-1, -1, "D")], "add"],
                        q: Tensor[bf16, (-1, -1, "D")], k: Tensor[bf16, (-1, -1, "D")],
                        v: Tensor[bf16, (-1, -1, "D")], do: Tensor[bf16, (-1, -1, "D")],
                        lse: Tensor[f32, (-1, -1)], delta: Tensor[f32, (-1, -1)], scale: f32,
                        BM: Const[int], BN: Const[int], D: Const[int],
                        CAUSAL: Const[bool], DQ_BY_ELEMENT: Const[bool] = False) -> None:
    """dK, dV of one key block, and its share of every query block's dQ (unscaled): one TMA
    reduction of the (BM, D) tile per query block, or (DQ_BY_ELEMENT) an atomic add per
    element from registers."""
    h, j, _ = dk.tile_index()
    kt = ct.load_tile_like(k, dk).reshape((BN, D))
    vt = ct.load_tile_like(v, dk).reshape((BN, D))
    pq, pdo, pl, pd = query_blocks(q, do, lse, delta, BM, D)
    qs = scale * LOG2E
    dk_acc = ct.zeros((BN, D), f32)
    dv_acc = ct.zeros((BN, D), f32)
    lo = 0
    if CAUSAL:
        lo = (j * BN) // BM
    keys = (j * BN + ct.arange(BN, i32)).reshape((BN, 1))
    for i in range(lo, ct.num_tiles(pq, 1)):
        qt = pq.load((h, i, 0)).reshape((BM, D))
        dk_acc, dv_acc, dst = grads_t(kt, vt, qt, pdo, pl, pd, h, i, qs, keys, dk_acc, dv_acc,
                                      BM, BN, D, CAUSAL)
        dqt = ct.mma(dst.transpose(), kt, ct.zeros((BM, D), f32))
        if DQ_BY_ELEMENT:
            rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
            dq_acc.add_at((h, rows, ct.arange(D, i32).reshape((1, D))), dqt)
        else:
            dq_acc.add(dqt.reshape((1, BM, D)), (h, i, 0))
    dk.store((dk_acc * scale).astype(bf16).reshape((1, BN, D)))
    dv.store(dv_acc.astype(bf16).reshape((1, BN, D)))


@ct.kernel
def attention_bwd_dq_cast(dq: Mut[Tensor[bf16, (1, "BM", "D")]],
                          dq_acc: Tensor[f32, (-1, -1, "D")], scale: f32, BM: Const[int],
                          D: Const[int]) -> None:
    """dQ = scale * the float32 sum, in bf16."""
    dq.store((ct.load_tile_like(dq_acc, dq) * scale).astype(bf16))


def attention_backward_fused(dq: Any, dk: Any, dv: Any, delta: Any, dq_acc: Any, q: Any, k: Any,
                             v: Any, o: Any, do: Any, lse: Any, scale: float, *, BM: int,
                             BN: int, CAUSAL: bool, kernel: Any = None,
                             by_element: bool = False) -> Any:
    """The fused backward as one lazy op of three launches. dq: (BH, S, D) bf16 partitioned
    (1, BM, D); dk, dv: partitioned (1, BN, D); delta: (BH, S) f32 partitioned (1, BM);
    dq_acc: (BH, S, D) f32 partitioned (1, BM, D) (scratch). `.sync()` hands back
    (dq, dk, dv, delta, dq_acc), the last unpartitioned. `kernel` replaces
    `attention_bwd_fused` (a hinted copy)."""
    fused = kernel or attention_bwd_fused

    def grads(delta: Any, acc: Any, o: Any, do: Any) -> Any:
        d, acc = delta.unpartition(), acc.unpartition()

        def cast(dk: Any, dv: Any, acc: Any, *_: Any) -> Any:
            return attention_bwd_dq_cast(dq, acc, scale).then(
                lambda dq, acc, *_: (dq, dk, dv, d, acc))

        return fused(dk, dv, acc, q, k, v, do, lse, d, scale, BM=BM, CAUSAL=CAUSAL,
                     DQ_BY_ELEMENT=by_element).then(cast)

    return attention_bwd_prepare(delta, dq_acc, o, do).then(grads)
