"""Flash-attention-style forward with online softmax; causal and non-causal.

q, k, v, out: (batch * heads, seq, D) in bf16. Each block owns BM query rows of one head and
streams over key/value tiles of BN rows, keeping a running max and sum (f32) per row.
Two things matter for speed on sm_90: `occupancy=2` (128 registers per thread, two blocks per SM,
so one block's softmax overlaps the other's matrix products), and exp2 with log2(e) folded into
the scale (`exp` costs several extra instructions per element for its range reduction). The
epilogue multiplies by one reciprocal per row: `acc / l_i` is an IEEE division per element (a
check and a slow-path call each).

A sequence that is not a multiple of BN ends in a key tile padded with zeros: their scores
(0) must not enter the softmax, so the last, ragged tile is peeled off the loop and masks the
columns past the sequence; the full tiles run unmasked. (Causal attention masks those columns
for every real query row anyway.)
"""

import math

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

NEG_INF = -1.0e30
LOG2E = 1.4426950408889634


@ct.function
def softmax_step(s, vt, m_i, l_i, acc, qs):  # type: ignore[no-untyped-def]
    """One key/value tile of the online softmax: scores `s` (BM, BN) in f32, values `vt`."""
    m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
    p = ct.exp2((s - m_new) * qs)
    alpha = ct.exp2((m_i - m_new) * qs)
    l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
    acc = ct.mma(p.astype(bf16), vt, acc * alpha)
    return m_new, l_i, acc


@ct.kernel(occupancy=2)
def attention(out: Mut[Tensor[bf16, (1, "BM", "D")]], q: Tensor[bf16, (-1, -1, "D")],
              k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")], scale: f32,
              BM: Const[int], BN: Const[int], D: Const[int], CAUSAL: Const[bool]) -> None:
    h, i, _ = out.tile_index()
    qt = ct.load_tile_like(q, out).reshape((BM, D))
    pk = k.partition((1, BN, D))
    pv = v.partition((1, BN, D))
    qs = scale * LOG2E
    m_i = ct.full((BM, 1), NEG_INF, f32)
    l_i = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    n = k.shape[1]  # the sequence length (rows of k)
    hi = ct.num_tiles(pk, 1)
    full = n // BN  # key tiles without padding: no mask
    if CAUSAL:
        hi = ((i + 1) * BM + BN - 1) // BN
        full = hi  # the causal mask also hides the padding past the sequence from real rows
    rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
    for j in range(full):
        kt = pk.load((h, j, 0)).reshape((BN, D))
        s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32))
        if CAUSAL:
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols <= rows, s, NEG_INF)
        vt = pv.load((h, j, 0)).reshape((BN, D))
        m_i, l_i, acc = softmax_step(s, vt, m_i, l_i, acc, qs)
    if not CAUSAL:
        for j in range(full, hi):  # the ragged last tile, if any: its padded keys (zeros)
            kt = pk.load((h, j, 0)).reshape((BN, D))  # must not enter the softmax
            s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32))
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols < n, s, NEG_INF)
            vt = pv.load((h, j, 0)).reshape((BN, D))
            m_i, l_i, acc = softmax_step(s, vt, m_i, l_i, acc, qs)
    out.store((acc * (1.0 / l_i)).astype(bf16).reshape((1, BM, D)))


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.asarray((p / p.sum(axis=-1, keepdims=True)) @ v)


def main(bh: int = 2, seq: int = 128, d: int = 64, bm: int = 64, bn: int = 32) -> None:
    q, k, v = (ct.randn((bh, seq, d), bf16, seed=s) for s in range(3))
    qf, kf, vf = (t.numpy().astype(np.float32) for t in (q, k, v))
    for causal in (False, True):
        out = ct.zeros((bh, seq, d), bf16).partition((1, bm, d))
        out, q, k, v, _ = attention(out, q, k, v, 1 / math.sqrt(d), BN=bn, CAUSAL=causal).sync()
        got = out.unpartition().numpy().astype(np.float32)
        np.testing.assert_allclose(got, reference(qf, kf, vf, causal), atol=3e-2, rtol=3e-2)
    print(f"attention: ({bh}, {seq}, {d}) causal and not on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
