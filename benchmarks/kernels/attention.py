"""Variants of examples/attention.py (flash-attention forward, online softmax) for the suite.

Same arguments, tiles and result as the example; each kernel's docstring says what differs.
- `attention_fma`: `s * qs - m_new * qs` (one fma per score) and, when causal, the mask only on
  the diagonal blocks;
- `attention_split`: the example's arithmetic with only the causal split;
- `attention_lazy`: as `attention_fma`, but the accumulator and the running sum are rescaled
  only when some row's maximum grew by more than 2**8 (a uniform branch per key block).
Tile shapes and hints come from benchmarks/suite/tuning.py.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

NEG_INF = -1.0e30
LOG2E = 1.4426950408889634
LAZY_LOG2 = 8.0  # attention_lazy: largest growth of a row maximum (in log2 units) not rescaled


@ct.kernel(occupancy=2)
def attention_fma(out: Mut[Tensor[bf16, (1, "BM", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                  k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")], scale: f32,
                  BM: Const[int], BN: Const[int], D: Const[int], CAUSAL: Const[bool]) -> None:
    """The example with `exp2(s * qs - m_new * qs)`: the product contracts into one fma per score
    (the example's `(s - m_new) * qs` is a subtraction and a multiplication). Causal: the key
    blocks left of the diagonal run a loop without the mask; only the blocks that cross the
    diagonal (BM // BN of them) compute the `where`."""
    h, i, _ = out.tile_index()
    qt = ct.load_tile_like(q, out).reshape((BM, D))
    pk = k.partition((1, BN, D))
    pv = v.partition((1, BN, D))
    qs = scale * LOG2E
    m_i = ct.full((BM, 1), NEG_INF, f32)
    l_i = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    full = ct.num_tiles(pk, 1)
    if CAUSAL:
        full = (i * BM) // BN
    for j in range(full):
        s = ct.mma(qt, pk.load((h, j, 0)).reshape((BN, D)).transpose(), ct.zeros((BM, BN), f32))
        m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
        mq = m_new * qs
        p = ct.exp2(s * qs - mq)
        alpha = ct.exp2(m_i * qs - mq)
        l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
        acc = ct.mma(p.astype(bf16), pv.load((h, j, 0)).reshape((BN, D)), acc * alpha)
        m_i = m_new
    if CAUSAL:
        rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
        for j in range(full, ((i + 1) * BM + BN - 1) // BN):
            s = ct.mma(qt, pk.load((h, j, 0)).reshape((BN, D)).transpose(),
                       ct.zeros((BM, BN), f32))
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols <= rows, s, NEG_INF)
            m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
            mq = m_new * qs
            p = ct.exp2(s * qs - mq)
            alpha = ct.exp2(m_i * qs - mq)
            l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
            acc = ct.mma(p.astype(bf16), pv.load((h, j, 0)).reshape((BN, D)), acc * alpha)
            m_i = m_new
    out.store((acc * (1.0 / l_i)).astype(bf16).reshape((1, BM, D)))


@ct.kernel(occupancy=2)
def attention_lazy(out: Mut[Tensor[bf16, (1, "BM", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                   k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")], scale: f32,
                   BM: Const[int], BN: Const[int], D: Const[int], CAUSAL: Const[bool]) -> None:
    """`attention_fma` with lazy rescaling: the running maximum `m_i` moves (and `acc`, `l_i` are
    multiplied by `alpha`) only in key blocks where some row's maximum grew by more than
    2**LAZY_LOG2; elsewhere p = exp2(s * qs - m_i * qs) stays below 2**LAZY_LOG2, which bf16 and
    the f32 sums hold exactly as well. Saves the (BM, D) multiply in most blocks, for a block-wide
    max per block. The result is the same: `acc` and `l_i` share the stale maximum."""
    h, i, _ = out.tile_index()
    qt = ct.load_tile_like(q, out).reshape((BM, D))
    pk = k.partition((1, BN, D))
    pv = v.partition((1, BN, D))
    qs = scale * LOG2E
    lazy = LAZY_LOG2 / qs
    m_i = ct.full((BM, 1), NEG_INF, f32)
    l_i = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    hi = ct.num_tiles(pk, 1)
    full = hi
    if CAUSAL:
        hi = ((i + 1) * BM + BN - 1) // BN
        full = (i * BM) // BN
    rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
    for j in range(hi):
        s = ct.mma(qt, pk.load((h, j, 0)).reshape((BN, D)).transpose(), ct.zeros((BM, BN), f32))
        if CAUSAL and j >= full:  # a block that crosses the diagonal
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols <= rows, s, NEG_INF)
        m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
        if ct.max((m_new - m_i).reshape((BM,)), 0) > lazy:
            alpha = ct.exp2((m_i - m_new) * qs)
            l_i = l_i * alpha
            acc = acc * alpha
            m_i = m_new
        p = ct.exp2(s * qs - m_i * qs)
        l_i = l_i + ct.sum(p, 1, keepdims=True)
        acc = ct.mma(p.astype(bf16), pv.load((h, j, 0)).reshape((BN, D)), acc)
    out.store((acc * (1.0 / l_i)).astype(bf16).reshape((1, BM, D)))


@ct.kernel(occupancy=2)
def attention_split(out: Mut[Tensor[bf16, (1, "BM", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                    k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")], scale: f32,
                    BM: Const[int], BN: Const[int], D: Const[int], CAUSAL: Const[bool]) -> None:
    """The example with its causal loop split in two: key blocks left of the diagonal without
    the mask, then the BM // BN blocks that cross it with the `where`. Non-causal: the example."""
    h, i, _ = out.tile_index()
    qt = ct.load_tile_like(q, out).reshape((BM, D))
    pk = k.partition((1, BN, D))
    pv = v.partition((1, BN, D))
    qs = scale * LOG2E
    m_i = ct.full((BM, 1), NEG_INF, f32)
    l_i = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    full = ct.num_tiles(pk, 1)
    if CAUSAL:
        full = (i * BM) // BN
    for j in range(full):
        s = ct.mma(qt, pk.load((h, j, 0)).reshape((BN, D)).transpose(), ct.zeros((BM, BN), f32))
        m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
        p = ct.exp2((s - m_new) * qs)
        alpha = ct.exp2((m_i - m_new) * qs)
        l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
        acc = ct.mma(p.astype(bf16), pv.load((h, j, 0)).reshape((BN, D)), acc * alpha)
        m_i = m_new
    if CAUSAL:
        rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
        for j in range(full, ((i + 1) * BM + BN - 1) // BN):
            s = ct.mma(qt, pk.load((h, j, 0)).reshape((BN, D)).transpose(),
                       ct.zeros((BM, BN), f32))
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols <= rows, s, NEG_INF)
            m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
            p = ct.exp2((s - m_new) * qs)
            alpha = ct.exp2((m_i - m_new) * qs)
            l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
            acc = ct.mma(p.astype(bf16), pv.load((h, j, 0)).reshape((BN, D)), acc * alpha)
            m_i = m_new
    out.store((acc * (1.0 / l_i)).astype(bf16).reshape((1, BM, D)))
