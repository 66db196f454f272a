"""cuTile Python (`cuda.tile`) peers, written for this suite against its public API.

Same designs as cutile's examples, so the comparison is between the two toolchains: one tile per
block for add, BM full rows per block for softmax and the norms, a grouped-order tiled GEMM with
f32 accumulation, a flash-style attention forward and a GEMV. Imported only when cuda.tile is.
"""

from __future__ import annotations

import math
from typing import Any

import cuda.tile as ct
import numpy as np

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
LOG2E = 1.0 / math.log(2.0)


@ct.kernel
def vadd(x, y, z, TILE: ConstInt):  # type: ignore[no-untyped-def]
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(TILE,))
    b = ct.load(y, index=(i,), shape=(TILE,))
    ct.store(z, index=(i,), tile=a + b)


@ct.kernel
def softmax_rows(x, y, BM: ConstInt, N: ConstInt):  # type: ignore[no-untyped-def]
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, N)).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    s = e / ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(i, 0), tile=s.astype(y.dtype))


@ct.kernel
def rmsnorm_rows(x, w, y, eps: float, BM: ConstInt, N: ConstInt):  # type: ignore[no-untyped-def]
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, N)).astype(ct.float32)
    g = ct.load(w, index=(0,), shape=(N,)).astype(ct.float32)
    r = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / N + eps)
    ct.store(y, index=(i, 0), tile=(t * r * g).astype(y.dtype))


@ct.kernel
def layernorm_rows(x, w, b, y, eps: float, BM: ConstInt,  # type: ignore[no-untyped-def]
                   N: ConstInt):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, N)).astype(ct.float32)
    c = t - ct.sum(t, axis=1, keepdims=True) / N
    r = ct.rsqrt(ct.sum(c * c, axis=1, keepdims=True) / N + eps)
    g = ct.load(w, index=(0,), shape=(N,)).astype(ct.float32)
    h = ct.load(b, index=(0,), shape=(N,)).astype(ct.float32)
    ct.store(y, index=(i, 0), tile=(c * r * g + h).astype(y.dtype))


@ct.kernel
def gemm_grouped(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt,  # type: ignore[no-untyped-def]
                 GROUP: ConstInt):
    pid = ct.bid(0)
    tiles_m = ct.cdiv(a.shape[0], BM)
    tiles_n = ct.cdiv(b.shape[1], BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows_in_group = min(tiles_m - first_m, GROUP)
    tm = first_m + (pid % per_group) % rows_in_group
    tn = (pid % per_group) // rows_in_group
    acc = ct.full((BM, BN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        at = ct.load(a, index=(tm, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        bt = ct.load(b, index=(k, tn), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(at, bt, acc)
    ct.store(c, index=(tm, tn), tile=acc.astype(c.dtype))


@ct.kernel(occupancy=2)
def attention_fwd(q, k, v, o, scale: float, H: ConstInt, D: ConstInt,  # type: ignore[no-untyped-def]
                  BM: ConstInt, BN: ConstInt, CAUSAL: ConstBool):
    i = ct.bid(0)
    bh = ct.bid(1)
    bi = bh // H
    hi = bh % H
    qs = scale * LOG2E
    qt = ct.load(q, index=(bi, hi, i, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((BM, 1), 0.0, dtype=np.float32)
    acc = ct.full((BM, D), 0.0, dtype=np.float32)
    rows = (i * BM + ct.arange(BM, dtype=np.int32))[:, None]
    n_kv = ct.cdiv(k.shape[2], BN)
    if CAUSAL:
        n_kv = ct.cdiv((i + 1) * BM, BN)
    for j in range(n_kv):
        kt = ct.load(k, index=(bi, hi, 0, j), shape=(1, 1, D, BN),
                     order=(0, 1, 3, 2)).reshape((D, BN))
        s = ct.mma(qt, kt, ct.full((BM, BN), 0.0, dtype=np.float32))
        if CAUSAL:
            cols = (j * BN + ct.arange(BN, dtype=np.int32))[None, :]
            s = ct.where(cols <= rows, s, -np.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True) * qs)
        p = ct.exp2(s * qs - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        vt = ct.load(v, index=(bi, hi, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(q.dtype), vt, acc * alpha)
        m_i = m_new
    out = (acc / l_i).astype(o.dtype).reshape((1, 1, BM, D))
    ct.store(o, index=(bi, hi, i, 0), tile=out)


@ct.kernel
def gemv_vec(x, w, y, BN: ConstInt, BK: ConstInt):  # type: ignore[no-untyped-def]
    j = ct.bid(0)
    acc = ct.full((BN, BK), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(w, axis=1, shape=(BN, BK))):
        xt = ct.load(x, index=(0, k), shape=(1, BK)).astype(ct.float32)
        wt = ct.load(w, index=(j, k), shape=(BN, BK)).astype(ct.float32)
        acc = acc + wt * xt
    ct.store(y, index=(0, j), tile=ct.sum(acc, axis=1).reshape((1, BN)).astype(y.dtype))


@ct.kernel
def gemv_mma(x, w, y, M: ConstInt, BN: ConstInt, BK: ConstInt):  # type: ignore[no-untyped-def]
    j = ct.bid(0)
    acc = ct.full((M, BN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(w, axis=1, shape=(BN, BK))):
        xt = ct.load(x, index=(0, k), shape=(M, BK))
        wt = ct.load(w, index=(j, k), shape=(BN, BK))
        acc = ct.mma(xt, ct.transpose(wt), acc)
    ct.store(y, index=(0, j), tile=acc.astype(y.dtype))


def launch(stream: Any, grid: tuple[int, ...], kernel: Any, args: tuple[Any, ...]) -> None:
    ct.launch(stream, grid, kernel, args)
