"""The cutile kernels of one Qwen3 decode step (batch 1, one new token).

Activations, norms and the KV cache are float32; the large matrices (projections, embedding,
LM head) are float32 or bfloat16, so each kernel that reads one comes in both dtypes, sharing
its body through an inlined `@ct.function`. Shapes that are not powers of two (a hidden size of
2560, a vocabulary of 151936) are covered by power-of-two tiles: loads past a tensor's edge read
zeros and stores past it are dropped (Tile IR semantics), so nothing else needs masking.
The token id and the position are read from (1,) i32 device tensors, so the arguments of a
step's launches do not change from one step to the next.
"""

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f32, i32

NEG_INF = -1.0e30


@ct.function
def _scalar(t):  # type: ignore[no-untyped-def]
    """The value of a (1,) device tensor, as a scalar."""
    return t.load_tile((1,), 0).reshape(())


# -- embedding: one row of the table, at the token id ----------------------------------------
@ct.function
def _embed(out, table, token, HP):  # type: ignore[no-untyped-def]
    out.store(table.load_tile((1, HP), (_scalar(token), 0)).astype(f32))


@ct.kernel
def embed_f32(out: Mut[Tensor[f32, (1, "HP")]], table: Tensor[f32, (-1, -1)],
              token: Tensor[i32, (1,)], HP: Const[int]) -> None:
    _embed(out, table, token, HP)


@ct.kernel
def embed_bf16(out: Mut[Tensor[f32, (1, "HP")]], table: Tensor[bf16, (-1, -1)],
               token: Tensor[i32, (1,)], HP: Const[int]) -> None:
    _embed(out, table, token, HP)


# -- RMSNorm of the (1, H) hidden row; H is the true width, HP its power-of-two tile ----------
@ct.kernel
def rms_norm(out: Mut[Tensor[f32, (1, "HP")]], x: Tensor[f32, (1, -1)], w: Tensor[f32, (-1,)],
             eps: f32, H: Const[int], HP: Const[int]) -> None:
    t = ct.load_tile_like(x, out)
    mean_sq = ct.sum(t * t, 1, keepdims=True) / H
    out.store(t * ct.rsqrt(mean_sq + eps) * w.load_tile((HP,), 0).reshape((1, HP)))


# -- matrix-vector products: y = x @ W^T with W (N, K); each block owns BN outputs -----------
@ct.function
def _matvec(x, w, j, BN, BK):  # type: ignore[no-untyped-def]
    px = x.partition((1, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((BN, BK), f32)
    for k in range(ct.num_tiles(pw, 1)):
        acc = acc + pw.load((j, k)).astype(f32) * px.load((0, k))
    return ct.sum(acc, 1).reshape((1, BN))


@ct.kernel
def gemv_f32(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)], w: Tensor[f32, (-1, -1)],
             BN: Const[int], BK: Const[int]) -> None:
    _, j = y.tile_index()
    y.store(_matvec(x, w, j, BN, BK))


@ct.kernel
def gemv_bf16(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
              w: Tensor[bf16, (-1, -1)], BN: Const[int], BK: Const[int]) -> None:
    _, j = y.tile_index()
    y.store(_matvec(x, w, j, BN, BK))


# y = res + x @ W^T: the o- and down-projections add the residual stream as they store
@ct.kernel
def gemv_residual_f32(y: Mut[Tensor[f32, (1, "BN")]], res: Tensor[f32, (1, -1)],
                      x: Tensor[f32, (1, -1)], w: Tensor[f32, (-1, -1)], BN: Const[int],
                      BK: Const[int]) -> None:
    _, j = y.tile_index()
    y.store(ct.load_tile_like(res, y) + _matvec(x, w, j, BN, BK))


@ct.kernel
def gemv_residual_bf16(y: Mut[Tensor[f32, (1, "BN")]], res: Tensor[f32, (1, -1)],
                       x: Tensor[f32, (1, -1)], w: Tensor[bf16, (-1, -1)], BN: Const[int],
                       BK: Const[int]) -> None:
    _, j = y.tile_index()
    y.store(ct.load_tile_like(res, y) + _matvec(x, w, j, BN, BK))


# -- SwiGLU MLP input: y = silu(x @ Wg^T) * (x @ Wu^T), both products in one pass -------------
@ct.function
def _swiglu(y, x, wg, wu, BN, BK):  # type: ignore[no-untyped-def]
    _, j = y.tile_index()
    g = _matvec(x, wg, j, BN, BK)
    y.store(g / (1.0 + ct.exp(-g)) * _matvec(x, wu, j, BN, BK))


@ct.kernel
def gate_up_f32(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                wg: Tensor[f32, (-1, -1)], wu: Tensor[f32, (-1, -1)], BN: Const[int],
                BK: Const[int]) -> None:
    _swiglu(y, x, wg, wu, BN, BK)


@ct.kernel
def gate_up_bf16(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                 wg: Tensor[bf16, (-1, -1)], wu: Tensor[bf16, (-1, -1)], BN: Const[int],
                 BK: Const[int]) -> None:
    _swiglu(y, x, wg, wu, BN, BK)


# -- q/k RMSNorm per head, then RoPE (rotate_half: the two halves of a head pair up) ----------
@ct.kernel
def qk_norm_rope(out: Mut[Tensor[f32, (1, "D")]], qkv: Tensor[f32, (-1, "D")],
                 q_norm: Tensor[f32, ("D",)], k_norm: Tensor[f32, ("D",)],
                 inv_freq: Tensor[f32, (-1,)], pos_t: Tensor[i32, (1,)], eps: f32,
                 NH: Const[int], D: Const[int]) -> None:
    h, _ = out.tile_index()  # rows 0..NH-1 are query heads, the rest key heads
    x1 = qkv.load_tile((1, D // 2), (h, 0))
    x2 = qkv.load_tile((1, D // 2), (h, 1))
    mean_sq = (ct.sum(x1 * x1, 1, keepdims=True) + ct.sum(x2 * x2, 1, keepdims=True)) / D
    r = ct.rsqrt(mean_sq + eps)
    is_q = h < NH
    w1 = ct.where(is_q, q_norm.load_tile((D // 2,), 0), k_norm.load_tile((D // 2,), 0))
    w2 = ct.where(is_q, q_norm.load_tile((D // 2,), 1), k_norm.load_tile((D // 2,), 1))
    y1 = x1 * r * w1.reshape((1, D // 2))
    y2 = x2 * r * w2.reshape((1, D // 2))
    angle = (_scalar(pos_t).astype(f32) * inv_freq.load_tile((D // 2,), 0)).reshape((1, D // 2))
    c = ct.cos(angle)
    s = ct.sin(angle)
    out.store(ct.cat((y1 * c - y2 * s, y2 * c + y1 * s), 1))


# -- KV-cache append: the new key/value row goes to row `pos` of every kv head's cache -------
# Each block owns a (1, BS, D) slab of both caches; only the block whose slab holds `pos`
# stores (a block that stores nothing leaves its slab as it was).
@ct.kernel
def kv_append(kc: Mut[Tensor[f32, (1, "BS", "D")]], vc: Mut[Tensor[f32, (1, "BS", "D")]],
              qk: Tensor[f32, (-1, "D")], qkv: Tensor[f32, (-1, "D")],
              pos_t: Tensor[i32, (1,)], NH: Const[int], NKV: Const[int], BS: Const[int],
              D: Const[int]) -> None:
    h, j, _ = kc.tile_index()
    pos = _scalar(pos_t)
    if j == pos // BS:
        here = (j * BS + ct.arange(BS, i32)).reshape((BS, 1)) == pos
        k_new = qk.load_tile((1, D), (NH + h, 0))
        v_new = qkv.load_tile((1, D), (NH + NKV + h, 0))
        kc.store(ct.where(here, k_new, kc.load().reshape((BS, D))).reshape((1, BS, D)))
        vc.store(ct.where(here, v_new, vc.load().reshape((BS, D))).reshape((1, BS, D)))


# -- decode attention: one query head per block over its kv head's cache rows 0..pos ---------
@ct.kernel
def decode_attention(out: Mut[Tensor[f32, (1, "D")]], qk: Tensor[f32, (-1, "D")],
                     kc: Tensor[f32, (-1, -1, "D")], vc: Tensor[f32, (-1, -1, "D")],
                     pos_t: Tensor[i32, (1,)], scale: f32, G: Const[int], BN: Const[int],
                     D: Const[int]) -> None:
    h, _ = out.tile_index()
    pos = _scalar(pos_t)
    q = qk.load_tile((1, D), (h, 0)) * scale
    pk = kc.partition((1, BN, D))
    pv = vc.partition((1, BN, D))
    m_i = ct.full((1, 1), NEG_INF, f32)
    l_i = ct.zeros((1, 1), f32)
    acc = ct.zeros((1, D), f32)
    for j in range(pos // BN + 1):
        kt = pk.load((h // G, j, 0)).reshape((BN, D))
        s = ct.sum(kt * q, 1, keepdims=True)
        cols = (j * BN + ct.arange(BN, i32)).reshape((BN, 1))
        s = ct.where(cols <= pos, s, NEG_INF)
        m_new = ct.maximum(m_i, ct.max(s, 0, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, 0, keepdims=True)
        vt = pv.load((h // G, j, 0)).reshape((BN, D))
        acc = acc * alpha + ct.sum(p * vt, 0, keepdims=True)
        m_i = m_new
    out.store(acc / l_i)


# -- greedy sampling: the index of the largest logit (the first one on ties) -----------------
# One block walks the row in BV-wide tiles, keeping the best value and its index; the lanes past
# the vocabulary (zeros when loaded) are masked out so they can never win.
@ct.kernel
def argmax_row(out: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (1, -1)], V: Const[int],
               BV: Const[int]) -> None:
    best = ct.full((1,), NEG_INF, f32)
    idx = ct.zeros((1,), i32)
    for j in range((V + BV - 1) // BV):
        cols = j * BV + ct.arange(BV, i32)
        t = ct.where(cols < V, x.load_tile((1, BV), (0, j)).reshape((BV,)), NEG_INF)
        m = ct.max(t, 0, keepdims=True)
        first = ct.min(ct.where(t == m, cols, V), 0, keepdims=True)
        better = m > best
        idx = ct.where(better, first, idx)
        best = ct.where(better, m, best)
    out.store(idx)
