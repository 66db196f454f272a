"""The cutile kernels of the batched prefill: the forward pass over all P prompt rows at once.

Activations are (P, width) float32 row blocks; the matrices are float32 or bfloat16 (N, K) as
in the decode step, so each kernel that reads one comes in both dtypes around an inlined
`@ct.function`. The projections are GEMMs on `ct.mma` with (BM, BN) output tiles; the weight
tile is widened to float32 before the product, so the prefill computes what the decode step
computes (float32 activations times the stored weights), only in a different order.
Rows past P (the last, partial row tile) read zeros and their stores are dropped, so P needs
no padding. The K and V rows of the prompt go straight into the KV cache, one block per kv
head owning its (1, S', D) slab of both caches, as the decode step's append does.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

NEG_INF = -1.0e30


# -- embedding: rows 0..P-1 of the token history, gathered from the table --------------------
@ct.function
def _embed_rows(out, table, history, BT, BD):  # type: ignore[no-untyped-def]
    t, d = out.tile_index()
    tok = history.load_tile((BT,), (t,)).reshape((BT, 1))
    cols = (d * BD + ct.arange(BD, i32)).reshape((1, BD))
    out.store(ct.gather(table, (tok, cols)).astype(f32))


@ct.kernel
def embed_rows_f32(out: Mut[Tensor[f32, ("BT", "BD")]], table: Tensor[f32, (-1, -1)],
                   history: Tensor[i32, (-1,)], BT: Const[int], BD: Const[int]) -> None:
    _embed_rows(out, table, history, BT, BD)


@ct.kernel
def embed_rows_bf16(out: Mut[Tensor[f32, ("BT", "BD")]], table: Tensor[bf16, (-1, -1)],
                    history: Tensor[i32, (-1,)], BT: Const[int], BD: Const[int]) -> None:
    _embed_rows(out, table, history, BT, BD)


# -- RMSNorm of each row: one block per row (H the true width, HP its power-of-two tile) ------
@ct.kernel
def rms_norm_rows(out: Mut[Tensor[f32, (1, "HP")]], x: Tensor[f32, (-1, -1)],
                  w: Tensor[f32, (-1,)], eps: f32, H: Const[int], HP: Const[int]) -> None:
    t = ct.load_tile_like(x, out)
    mean_sq = ct.sum(t * t, 1, keepdims=True) / H
    out.store(t * ct.rsqrt(mean_sq + eps) * w.load_tile((HP,), 0).reshape((1, HP)))


# the final norm of one row only (the last prompt row: its logits pick the first new token)
@ct.kernel
def rms_norm_row_at(out: Mut[Tensor[f32, (1, "HP")]], x: Tensor[f32, (-1, -1)],
                    w: Tensor[f32, (-1,)], row: i32, eps: f32, H: Const[int],
                    HP: Const[int]) -> None:
    t = x.load_tile((1, HP), (row, 0))
    mean_sq = ct.sum(t * t, 1, keepdims=True) / H
    out.store(t * ct.rsqrt(mean_sq + eps) * w.load_tile((HP,), 0).reshape((1, HP)))


# -- GEMMs: y = x @ W^T with x (P, K) and W (N, K); each block owns a (BM, BN) output tile ---
@ct.function
def _mm(x, w, i, j, BM, BN, BK):  # type: ignore[no-untyped-def]
    px = x.partition((BM, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pw, 1)):
        acc = ct.mma(px.load((i, k)), pw.load((j, k)).astype(f32).transpose(), acc)
    return acc


@ct.function
def _gemm(y, x, w, BM, BN, BK):  # type: ignore[no-untyped-def]
    i, j = y.tile_index()
    y.store(_mm(x, w, i, j, BM, BN, BK))


@ct.kernel
def gemm_f32(y: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)],
             w: Tensor[f32, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    _gemm(y, x, w, BM, BN, BK)


@ct.kernel
def gemm_bf16(y: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)],
              w: Tensor[bf16, (-1, -1)], BM: Const[int], BN: Const[int], BK: Const[int]) -> None:
    _gemm(y, x, w, BM, BN, BK)


# y = res + x @ W^T: the o- and down-projections add the residual stream as they store
@ct.function
def _gemm_residual(y, res, x, w, BM, BN, BK):  # type: ignore[no-untyped-def]
    i, j = y.tile_index()
    y.store(ct.load_tile_like(res, y) + _mm(x, w, i, j, BM, BN, BK))


@ct.kernel
def gemm_residual_f32(y: Mut[Tensor[f32, ("BM", "BN")]], res: Tensor[f32, (-1, -1)],
                      x: Tensor[f32, (-1, -1)], w: Tensor[f32, (-1, -1)], BM: Const[int],
                      BN: Const[int], BK: Const[int]) -> None:
    _gemm_residual(y, res, x, w, BM, BN, BK)


@ct.kernel
def gemm_residual_bf16(y: Mut[Tensor[f32, ("BM", "BN")]], res: Tensor[f32, (-1, -1)],
                       x: Tensor[f32, (-1, -1)], w: Tensor[bf16, (-1, -1)], BM: Const[int],
                       BN: Const[int], BK: Const[int]) -> None:
    _gemm_residual(y, res, x, w, BM, BN, BK)


# SwiGLU: y = silu(x @ Wg^T) * (x @ Wu^T), both products of one output tile in one block
@ct.function
def _gate_up(y, x, wg, wu, BM, BN, BK):  # type: ignore[no-untyped-def]
    i, j = y.tile_index()
    g = _mm(x, wg, i, j, BM, BN, BK)
    y.store(g / (1.0 + ct.exp(-g)) * _mm(x, wu, i, j, BM, BN, BK))


@ct.kernel
def gate_up_rows_f32(y: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)],
                     wg: Tensor[f32, (-1, -1)], wu: Tensor[f32, (-1, -1)], BM: Const[int],
                     BN: Const[int], BK: Const[int]) -> None:
    _gate_up(y, x, wg, wu, BM, BN, BK)


@ct.kernel
def gate_up_rows_bf16(y: Mut[Tensor[f32, ("BM", "BN")]], x: Tensor[f32, (-1, -1)],
                      wg: Tensor[bf16, (-1, -1)], wu: Tensor[bf16, (-1, -1)], BM: Const[int],
                      BN: Const[int], BK: Const[int]) -> None:
    _gate_up(y, x, wg, wu, BM, BN, BK)


# -- q/k RMSNorm per head and RoPE, for BM rows (positions i*BM ..) of one head ---------------
# qkv is the (P, (NH + 2 NKV) D) output of the stacked projection; head c is its c-th D columns.
@ct.function
def _norm_rope(qkv, w, inv_freq, i, c, eps, BM, D):  # type: ignore[no-untyped-def]
    x1 = qkv.load_tile((BM, D // 2), (i, 2 * c))
    x2 = qkv.load_tile((BM, D // 2), (i, 2 * c + 1))
    mean_sq = (ct.sum(x1 * x1, 1, keepdims=True) + ct.sum(x2 * x2, 1, keepdims=True)) / D
    r = ct.rsqrt(mean_sq + eps)
    y1 = x1 * r * w.load_tile((D // 2,), 0).reshape((1, D // 2))
    y2 = x2 * r * w.load_tile((D // 2,), 1).reshape((1, D // 2))
    return _rotate_rows(y1, y2, inv_freq, i, BM, D)


@ct.function
def _rotate_rows(x1, x2, inv_freq, i, BM, D):  # type: ignore[no-untyped-def]
    """RoPE of row block i's halves, each row at its position (rotate_half)."""
    pos = (i * BM + ct.arange(BM, i32)).astype(f32).reshape((BM, 1))
    angle = pos * inv_freq.load_tile((D // 2,), 0).reshape((1, D // 2))
    c_ = ct.cos(angle)
    s_ = ct.sin(angle)
    return ct.cat((x1 * c_ - x2 * s_, x2 * c_ + x1 * s_), 1)


# the query heads: out is (P, NH D), the layout the attention kernel reads
@ct.kernel
def q_norm_rope_rows(out: Mut[Tensor[f32, ("BM", "D")]], qkv: Tensor[f32, (-1, -1)],
                     q_norm: Tensor[f32, ("D",)], inv_freq: Tensor[f32, (-1,)], eps: f32,
                     BM: Const[int], D: Const[int]) -> None:
    i, h = out.tile_index()
    out.store(_norm_rope(qkv, q_norm, inv_freq, i, h, eps, BM, D))


# the key heads (normed, rotated) and the value heads, written into rows 0..n-1 of the caches:
# block h owns kv head h's (1, S', D) slab of both caches and stores (1, BM, D) tiles into it
# (float32 caches, or bfloat16 ones in the `_kvbf16` forms: rounded as they are stored)
@ct.function
def _kv_fill(kc, vc, qkv, k_norm, inv_freq, n, eps, NH, NKV, BM, D, KV):  # type: ignore[no-untyped-def]
    h, _, _ = kc.tile_index()
    for i in range(ct.cdiv(n, BM)):
        k = _norm_rope(qkv, k_norm, inv_freq, i, NH + h, eps, BM, D)
        kc.store(k.reshape((1, BM, D)).astype(KV), (0, i, 0))
        v = qkv.load_tile((BM, D), (i, NH + NKV + h))
        vc.store(v.reshape((1, BM, D)).astype(KV), (0, i, 0))


@ct.kernel
def kv_fill(kc: Mut[Tensor[f32, (1, -1, "D")]], vc: Mut[Tensor[f32, (1, -1, "D")]],
            qkv: Tensor[f32, (-1, -1)], k_norm: Tensor[f32, ("D",)],
            inv_freq: Tensor[f32, (-1,)], n: i32, eps: f32, NH: Const[int], NKV: Const[int],
            BM: Const[int], D: Const[int]) -> None:
    _kv_fill(kc, vc, qkv, k_norm, inv_freq, n, eps, NH, NKV, BM, D, f32)


@ct.kernel
def kv_fill_kvbf16(kc: Mut[Tensor[bf16, (1, -1, "D")]], vc: Mut[Tensor[bf16, (1, -1, "D")]],
                   qkv: Tensor[f32, (-1, -1)], k_norm: Tensor[f32, ("D",)],
                   inv_freq: Tensor[f32, (-1,)], n: i32, eps: f32, NH: Const[int],
                   NKV: Const[int], BM: Const[int], D: Const[int]) -> None:
    _kv_fill(kc, vc, qkv, k_norm, inv_freq, n, eps, NH, NKV, BM, D, bf16)


# The same without the q/k norm (Llama): rows only rotated at their positions.
@ct.function
def _rope_rows(qkv, inv_freq, i, c, BM, D):  # type: ignore[no-untyped-def]
    x1 = qkv.load_tile((BM, D // 2), (i, 2 * c))
    x2 = qkv.load_tile((BM, D // 2), (i, 2 * c + 1))
    return _rotate_rows(x1, x2, inv_freq, i, BM, D)


@ct.kernel
def q_rope_rows(out: Mut[Tensor[f32, ("BM", "D")]], qkv: Tensor[f32, (-1, -1)],
                inv_freq: Tensor[f32, (-1,)], BM: Const[int], D: Const[int]) -> None:
    i, h = out.tile_index()
    out.store(_rope_rows(qkv, inv_freq, i, h, BM, D))


@ct.function
def _kv_rope_fill(kc, vc, qkv, inv_freq, n, NH, NKV, BM, D, KV):  # type: ignore[no-untyped-def]
    h, _, _ = kc.tile_index()
    for i in range(ct.cdiv(n, BM)):
        k = _rope_rows(qkv, inv_freq, i, NH + h, BM, D)
        kc.store(k.reshape((1, BM, D)).astype(KV), (0, i, 0))
        v = qkv.load_tile((BM, D), (i, NH + NKV + h))
        vc.store(v.reshape((1, BM, D)).astype(KV), (0, i, 0))


@ct.kernel
def kv_rope_fill(kc: Mut[Tensor[f32, (1, -1, "D")]], vc: Mut[Tensor[f32, (1, -1, "D")]],
                 qkv: Tensor[f32, (-1, -1)], inv_freq: Tensor[f32, (-1,)], n: i32,
                 NH: Const[int], NKV: Const[int], BM: Const[int], D: Const[int]) -> None:
    _kv_rope_fill(kc, vc, qkv, inv_freq, n, NH, NKV, BM, D, f32)


@ct.kernel
def kv_rope_fill_kvbf16(kc: Mut[Tensor[bf16, (1, -1, "D")]],
                        vc: Mut[Tensor[bf16, (1, -1, "D")]], qkv: Tensor[f32, (-1, -1)],
                        inv_freq: Tensor[f32, (-1,)], n: i32, NH: Const[int], NKV: Const[int],
                        BM: Const[int], D: Const[int]) -> None:
    _kv_rope_fill(kc, vc, qkv, inv_freq, n, NH, NKV, BM, D, bf16)


# -- causal attention over the prompt: BM query rows of one head per block --------------------
# Query head h reads kv head h // G of the cache (rows 0..P-1 were just written), keeping a
# running max and sum per row; out is the (P, NH D) input of the o-projection.
@ct.function
def _prefill_attention(out, q, kc, vc, scale, G, BM, BN, D):  # type: ignore[no-untyped-def]
    i, h = out.tile_index()
    qt = ct.load_tile_like(q, out) * scale
    pk = kc.partition((1, BN, D))
    pv = vc.partition((1, BN, D))
    m_i = ct.full((BM, 1), NEG_INF, f32)
    l_i = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    rows = (i * BM + ct.arange(BM, i32)).reshape((BM, 1))
    for j in range(((i + 1) * BM + BN - 1) // BN):
        kt = pk.load((h // G, j, 0)).reshape((BN, D)).astype(f32)
        s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32))
        cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
        s = ct.where(cols <= rows, s, NEG_INF)
        m_new = ct.maximum(m_i, ct.max(s, 1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, 1, keepdims=True)
        vt = pv.load((h // G, j, 0)).reshape((BN, D)).astype(f32)
        acc = ct.mma(p, vt, acc * alpha)
        m_i = m_new
    out.store(acc / l_i)


@ct.kernel
def prefill_attention(out: Mut[Tensor[f32, ("BM", "D")]], q: Tensor[f32, (-1, -1)],
                      kc: Tensor[f32, (-1, -1, "D")], vc: Tensor[f32, (-1, -1, "D")],
                      scale: f32, G: Const[int], BM: Const[int], BN: Const[int],
                      D: Const[int]) -> None:
    _prefill_attention(out, q, kc, vc, scale, G, BM, BN, D)


@ct.kernel
def prefill_attention_kvbf16(out: Mut[Tensor[f32, ("BM", "D")]], q: Tensor[f32, (-1, -1)],
                             kc: Tensor[bf16, (-1, -1, "D")], vc: Tensor[bf16, (-1, -1, "D")],
                             scale: f32, G: Const[int], BM: Const[int], BN: Const[int],
                             D: Const[int]) -> None:
    _prefill_attention(out, q, kc, vc, scale, G, BM, BN, D)
