"""Flash-attention-style backward (dQ, dK, dV) in the FlashAttention-2 form; causal and not.

q, k, v, o, do: (batch * heads, seq, D) in bf16, f32 accumulation. The forward variant here,
`attention_lse`, writes O and the log-sum-exp of each score row (LSE, f32, in the log2 domain
of the scaled scores: P = exp2(QK^T * scale * log2(e) - LSE)) as two Mut outputs partitioned
over the same (head, query block) grid. The backward is three safe kernels, each writing only
its own blocks (no atomics):
1. `attention_bwd_preprocess`: Delta = rowsum(dO * O) per query row;
2. `attention_bwd_dkdv`: one block per key/value block of BN rows, looping over query blocks and
   recomputing P from Q, K and LSE: dV += P^T dO, dS = P * (dO V^T - Delta), dK += dS^T Q;
3. `attention_bwd_dq`: one block per query block, looping over key/value blocks: dQ += dS K.
Causal blocks that are fully masked are skipped by the loop bounds (the dK/dV loop starts at
the first query block that reaches the key block; the dQ loop stops after the diagonal).
`attention_backward` chains the three launches into one lazy op (one graph when captured).
A sequence that is not a multiple of BN: the forward masks the padded keys of its last key
tile (as examples/attention.py); in the backward, padded keys and values are zeros and padded
query rows have zero dO, so they add nothing (their dK/dV/dQ rows are not stored).
"""

import math
from typing import Any

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
def attention_lse(out: Mut[Tensor[bf16, (1, "BM", "D")]], lse: Mut[Tensor[f32, (1, "BM")]],
                  q: Tensor[bf16, (-1, -1, "D")], k: Tensor[bf16, (-1, -1, "D")],
                  v: Tensor[bf16, (-1, -1, "D")], scale: f32, BM: Const[int], BN: Const[int],
                  D: Const[int], CAUSAL: Const[bool]) -> None:
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
        for j in range(full, hi):  # the ragged last tile: its padded keys (zeros) masked
            kt = pk.load((h, j, 0)).reshape((BN, D))
            s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32))
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            s = ct.where(cols < n, s, NEG_INF)
            vt = pv.load((h, j, 0)).reshape((BN, D))
            m_i, l_i, acc = softmax_step(s, vt, m_i, l_i, acc, qs)
    out.store((acc * (1.0 / l_i)).astype(bf16).reshape((1, BM, D)))
    lse.store((m_i * qs + ct.log2(l_i)).reshape((1, BM)))


@ct.kernel
def attention_bwd_preprocess(delta: Mut[Tensor[f32, (1, "BM")]], o: Tensor[bf16, (-1, -1, "D")],
                             do: Tensor[bf16, (-1, -1, "D")], BM: Const[int],
                             D: Const[int]) -> None:
    h, i = delta.tile_index()
    ot = o.partition((1, BM, D)).load((h, i, 0)).astype(f32)
    dot = do.partition((1, BM, D)).load((h, i, 0)).astype(f32)
    delta.store(ct.sum(ot * dot, 2))


@ct.kernel(occupancy=1)
def attention_bwd_dkdv(dk: Mut[Tensor[bf16, (1, "BN", "D")]], dv: Mut[Tensor[bf16, (1, "BN", "D")]],
                       q: Tensor[bf16, (-1, -1, "D")], k: Tensor[bf16, (-1, -1, "D")],
                       v: Tensor[bf16, (-1, -1, "D")], do: Tensor[bf16, (-1, -1, "D")],
                       lse: Tensor[f32, (-1, -1)], delta: Tensor[f32, (-1, -1)], scale: f32,
                       BM: Const[int], BN: Const[int], D: Const[int],
                       CAUSAL: Const[bool]) -> None:
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
    cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
    for i in range(lo, ct.num_tiles(pq, 1)):
        qt = pq.load((h, i, 0)).reshape((BM, D))
        dot = pdo.load((h, i, 0)).reshape((BM, D))
        p = ct.exp2(ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32)) * qs
                    - pl.load((h, i)).reshape((BM, 1)))
        if CAUSAL:
            rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
            p = ct.where(cols <= rows, p, 0.0)
        dv_acc = ct.mma(p.astype(bf16).transpose(), dot, dv_acc)
        dp = ct.mma(dot, vt.transpose(), ct.zeros((BM, BN), f32))
        ds = p * (dp - pd.load((h, i)).reshape((BM, 1)))
        dk_acc = ct.mma(ds.astype(bf16).transpose(), qt, dk_acc)
    dk.store((dk_acc * scale).astype(bf16).reshape((1, BN, D)))
    dv.store(dv_acc.astype(bf16).reshape((1, BN, D)))


@ct.kernel(occupancy=1)
def attention_bwd_dq(dq: Mut[Tensor[bf16, (1, "BM", "D")]], q: Tensor[bf16, (-1, -1, "D")],
                     k: Tensor[bf16, (-1, -1, "D")], v: Tensor[bf16, (-1, -1, "D")],
                     do: Tensor[bf16, (-1, -1, "D")], lse: Tensor[f32, (-1, -1)],
                     delta: Tensor[f32, (-1, -1)], scale: f32, BM: Const[int], BN: Const[int],
                     D: Const[int], CAUSAL: Const[bool]) -> None:
    h, i, _ = dq.tile_index()
    qt = ct.load_tile_like(q, dq).reshape((BM, D))
    dot = ct.load_tile_like(do, dq).reshape((BM, D))
    lt = lse.partition((1, BM)).load((h, i)).reshape((BM, 1))
    dl = delta.partition((1, BM)).load((h, i)).reshape((BM, 1))
    pk = k.partition((1, BN, D))
    pv = v.partition((1, BN, D))
    qs = scale * LOG2E
    acc = ct.zeros((BM, D), f32)
    hi = ct.num_tiles(pk, 1)
    if CAUSAL:
        hi = ((i + 1) * BM + BN - 1) // BN  # later key blocks are fully masked
    rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
    for j in range(hi):
        kt = pk.load((h, j, 0)).reshape((BN, D))
        vt = pv.load((h, j, 0)).reshape((BN, D))
        p = ct.exp2(ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32)) * qs - lt)
        if CAUSAL:
            cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
            p = ct.where(cols <= rows, p, 0.0)
        dp = ct.mma(dot, vt.transpose(), ct.zeros((BM, BN), f32))
        ds = p * (dp - dl)
        acc = ct.mma(ds.astype(bf16), kt, acc)
    dq.store((acc * scale).astype(bf16).reshape((1, BM, D)))


def attention_backward(dq: Any, dk: Any, dv: Any, delta: Any, q: Any, k: Any, v: Any, o: Any,
                       do: Any, lse: Any, scale: float, *, BM: int, BN: int, CAUSAL: bool,
                       kernels: tuple[Any, Any, Any] | None = None) -> Any:
    """The three backward launches as one lazy op. dq: (BH, S, D) partitioned (1, BM, D);
    dk, dv: partitioned (1, BN, D); delta: (BH, S) f32 partitioned (1, BM). `.sync()` hands
    back (dq, dk, dv, delta, o). `kernels` replaces (preprocess, dkdv, dq) (hinted copies)."""
    pre = attention_bwd_preprocess
    dkdv, dqk = kernels[1:] if kernels else (attention_bwd_dkdv, attention_bwd_dq)
    if kernels:
        pre = kernels[0]

    def grads(delta: Any, o: Any, do: Any) -> Any:
        d = delta.unpartition()

        def grad_q(dk: Any, dv: Any, q: Any, k: Any, v: Any, do: Any, lse: Any, d: Any,
                   s: float) -> Any:
            return dqk(dq, q, k, v, do, lse, d, s, BN=BN, CAUSAL=CAUSAL).then(
                lambda dq, *_: (dq, dk, dv, d, o))

        return dkdv(dk, dv, q, k, v, do, lse, d, scale, BM=BM, CAUSAL=CAUSAL).then(grad_q)

    return pre(delta, o, do).then(grads)


def forward_reference(q: np.ndarray, k: np.ndarray, causal: bool) -> np.ndarray:
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    out: np.ndarray = p / p.sum(axis=-1, keepdims=True)
    return out


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, do: np.ndarray, causal: bool
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dQ, dK, dV) of O = softmax(QK^T / sqrt(D)) V in float32."""
    scale = 1 / math.sqrt(q.shape[-1])
    p = forward_reference(q, k, causal)
    dv = p.transpose(0, 2, 1) @ do
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - np.sum(dp * p, axis=-1, keepdims=True))
    return ds @ k * scale, ds.transpose(0, 2, 1) @ q * scale, dv


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    assert err < 2e-2, f"{what}: relative error {err:.3g}"


def forward(q: Any, k: Any, v: Any, *, bm: int, bn: int, causal: bool) -> tuple[Any, Any]:
    """(O, LSE) of (BH, S, D) tensors, by `attention_lse` with (BM, BN) tiles."""
    bh, seq, d = q.shape
    o = ct.zeros((bh, seq, d), bf16).partition((1, bm, d))
    lse = ct.zeros((bh, seq), f32).partition((1, bm))
    o, lse, *_ = attention_lse(o, lse, q, k, v, 1 / math.sqrt(d), BN=bn, CAUSAL=causal).sync()
    return o.unpartition(), lse.unpartition()


def backward_op(q: Any, k: Any, v: Any, o: Any, do: Any, lse: Any, *, bm: int, bn: int,
                causal: bool, kernels: tuple[Any, Any, Any] | None = None) -> Any:
    """The lazy backward on fresh gradient tensors; `.sync()` gives (dq, dk, dv, delta, o)."""
    bh, seq, d = q.shape
    dq = ct.zeros((bh, seq, d), bf16).partition((1, bm, d))
    dk = ct.zeros((bh, seq, d), bf16).partition((1, bn, d))
    dv = ct.zeros((bh, seq, d), bf16).partition((1, bn, d))
    delta = ct.zeros((bh, seq), f32).partition((1, bm))
    return attention_backward(dq, dk, dv, delta, q, k, v, o, do, lse, 1 / math.sqrt(d), BM=bm,
                              BN=bn, CAUSAL=causal, kernels=kernels)


def check(bh: int, seq: int, d: int, bm: int, bn: int, causal: bool,
          kernels: tuple[Any, Any, Any] | None = None) -> None:
    """Forward and backward on random inputs against the NumPy reference."""
    q, k, v, do = (ct.randn((bh, seq, d), bf16, seed=s) for s in range(4))
    f = [t.numpy().astype(np.float32) for t in (q, k, v, do)]
    o, lse = forward(q, k, v, bm=bm, bn=bn, causal=causal)
    _close(o.numpy().astype(np.float32), forward_reference(f[0], f[1], causal) @ f[2], "O")
    dq, dk, dv, *_ = backward_op(q, k, v, o, do, lse, bm=bm, bn=bn, causal=causal,
                                 kernels=kernels).sync()
    grads = reference(f[0], f[1], f[2], f[3], causal)
    for name, got, want in zip(("dQ", "dK", "dV"), (dq, dk, dv), grads, strict=True):
        _close(got.unpartition().numpy().astype(np.float32), want, name)


def main(bh: int = 2, seq: int = 128, d: int = 64, bm: int = 64, bn: int = 32) -> None:
    for causal in (False, True):
        check(bh, seq, d, bm, bn, causal)
    print(f"attention_backward: ({bh}, {seq}, {d}) causal and not on {ct.backend_name()}, ok")


if __name__ == "__main__":
    main()
