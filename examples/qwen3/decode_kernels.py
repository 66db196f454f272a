"""The cutile kernels of one Qwen3 decode step (batch 1, one new token).

Activations and norms are float32; the large matrices (projections, embedding, LM head) are
float32 or bfloat16 (kernels named `_f32` / `_bf16`), and so is the KV cache (`_kvbf16` for a
bfloat16 one): each kernel comes in the dtypes it reads, sharing its body through an inlined
`@ct.function`. Shapes that are not powers of two (a hidden size of
2560, a vocabulary of 151936) are covered by power-of-two tiles: loads past a tensor's edge read
zeros and stores past it are dropped (Tile IR semantics), so nothing else needs masking.
The position is read from a (1,) i32 device tensor and the token id from a token history at
that position, so the arguments of a step's launches do not change from one step to the next:
the step is captured once as a CUDA graph and replayed, and its last kernel advances the
position (and writes the token it picked into the history).
"""

from typing import TypeVar

import cutile as ct
from cutile import Const, DType, Mut, Tensor, bf16, f32, i32, i64

KV = TypeVar("KV", bound=ct.TileValue)  # the KV cache's dtype in the dtype-generic kernels

NEG_INF = -1.0e30
# the sampling keys (i32 bits as i64) lie in [KEY_LOW, KEY_END); an invalid lane's is below
KEY_LOW = -2147483648
KEY_END = 2147483648


@ct.function
def _scalar(t):  # type: ignore[no-untyped-def]
    """The value of a (1,) device tensor, as a scalar."""
    return t.load_tile((1,), 0).reshape(())


# -- embedding: one row of the table, at the token id ----------------------------------------
# the token is history[pos]: the prompt's tokens, then the ones the step picked
@ct.function
def _embed(out, table, history, pos_t, HP):  # type: ignore[no-untyped-def]
    token = history.load_tile((1,), _scalar(pos_t)).reshape(())
    out.store(table.load_tile((1, HP), (token, 0)).astype(f32))


@ct.kernel
def embed_f32(out: Mut[Tensor[f32, (1, "HP")]], table: Tensor[f32, (-1, -1)],
              history: Tensor[i32, (-1,)], pos_t: Tensor[i32, (1,)], HP: Const[int]) -> None:
    _embed(out, table, history, pos_t, HP)


@ct.kernel
def embed_bf16(out: Mut[Tensor[f32, (1, "HP")]], table: Tensor[bf16, (-1, -1)],
               history: Tensor[i32, (-1,)], pos_t: Tensor[i32, (1,)], HP: Const[int]) -> None:
    _embed(out, table, history, pos_t, HP)


# -- RMSNorm of the (1, H) hidden row; H is the true width, HP its power-of-two tile ----------
@ct.function
def _rms(t, w, eps, H, HP):  # type: ignore[no-untyped-def]
    mean_sq = ct.sum(t * t, 1, keepdims=True) / H
    return t * ct.rsqrt(mean_sq + eps) * w.load_tile((HP,), 0).reshape((1, HP))


@ct.kernel
def rms_norm(out: Mut[Tensor[f32, (1, "HP")]], x: Tensor[f32, (1, -1)], w: Tensor[f32, (-1,)],
             eps: f32, H: Const[int], HP: Const[int]) -> None:
    out.store(_rms(ct.load_tile_like(x, out), w, eps, H, HP))


# The residual add and the next norm in one block: h = res + the S partial sums of a split
# projection (below), stored, and its RMSNorm stored as the next projection's input.
@ct.kernel
def add_rms_norm(h: Mut[Tensor[f32, (1, "HP")]], out: Mut[Tensor[f32, (1, "HP")]],
                 res: Tensor[f32, (1, -1)], parts: Tensor[f32, (-1, -1)], w: Tensor[f32, (-1,)],
                 eps: f32, H: Const[int], HP: Const[int], S: Const[int]) -> None:
    t = ct.load_tile_like(res, h) + ct.sum(parts.load_tile((S, HP), (0, 0)), 0, keepdims=True)
    h.store(t)
    out.store(_rms(t, w, eps, H, HP))


# -- matrix-vector products: y = x @ W^T with W (N, K) -----------------------------------------
# y is (S, N): block (s, j) owns BN outputs of split s and walks the K tiles s, s + S, ...; with
# S > 1 the rows are partial sums that add_rms_norm adds up (more blocks for a narrow W).
# LAT > 0 is tileiras' `latency` hint on both loads (more TMA stages in flight); 0 gives none.
@ct.function
def _matvec(x, w, s, j, S, BN, BK, LAT):  # type: ignore[no-untyped-def]
    px = x.partition((1, BK))
    pw = w.partition((BN, BK))
    acc = ct.zeros((BN, BK), f32)
    lat = LAT if LAT > 0 else None
    for k in range(s, ct.num_tiles(pw, 1), S):
        acc = acc + pw.load((j, k), latency=lat).astype(f32) * px.load((0, k), latency=lat)
    return ct.sum(acc, 1).reshape((1, BN))


@ct.kernel
def gemv_f32(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)], w: Tensor[f32, (-1, -1)],
             S: Const[int], BN: Const[int], BK: Const[int], LAT: Const[int]) -> None:
    s, j = y.tile_index()
    y.store(_matvec(x, w, s, j, S, BN, BK, LAT))


@ct.kernel
def gemv_bf16(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
              w: Tensor[bf16, (-1, -1)], S: Const[int], BN: Const[int], BK: Const[int],
              LAT: Const[int]) -> None:
    s, j = y.tile_index()
    y.store(_matvec(x, w, s, j, S, BN, BK, LAT))


# -- the same products as explicit dependent launches (Engine(pdl="prefetch")) -----------------
# Each block loads its first weight tile, then waits for the kernel before it (the one that
# writes x), then does the rest: no launch of a step writes the weights, so that first load may
# overlap the previous kernel's end (CT308 checks it at every link). The remaining tiles are
# walked by a step-1 counter (k = s + t S), as the counted form of _matvec's loop.
@ct.function
def _weights_at(w, j, k, BN, BK, LAT):  # type: ignore[no-untyped-def]
    lat = LAT if LAT > 0 else None
    return w.partition((BN, BK)).load((j, k), latency=lat).astype(f32)


@ct.function
def _matvec_after(x, w, w0, s, j, S, BN, BK, LAT):  # type: ignore[no-untyped-def]
    """_matvec, its first weight tile (tile s) already loaded as w0."""
    px = x.partition((1, BK))
    pw = w.partition((BN, BK))
    lat = LAT if LAT > 0 else None
    acc = w0 * px.load((0, s), latency=lat)
    for t in range(1, ct.cdiv(ct.num_tiles(pw, 1) - s, S)):
        k = s + t * S
        acc = acc + pw.load((j, k), latency=lat).astype(f32) * px.load((0, k), latency=lat)
    return ct.sum(acc, 1).reshape((1, BN))


@ct.kernel(pdl=True)
def gemv_f32_pdl(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                 w: Tensor[f32, (-1, -1)], S: Const[int], BN: Const[int], BK: Const[int],
                 LAT: Const[int]) -> None:
    s, j = y.tile_index()
    w0 = _weights_at(w, j, s, BN, BK, LAT)
    ct.wait_for_predecessor()
    y.store(_matvec_after(x, w, w0, s, j, S, BN, BK, LAT))


@ct.kernel(pdl=True)
def gemv_bf16_pdl(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                  w: Tensor[bf16, (-1, -1)], S: Const[int], BN: Const[int], BK: Const[int],
                  LAT: Const[int]) -> None:
    s, j = y.tile_index()
    w0 = _weights_at(w, j, s, BN, BK, LAT)
    ct.wait_for_predecessor()
    y.store(_matvec_after(x, w, w0, s, j, S, BN, BK, LAT))


@ct.function
def _swiglu_after(y, x, wg, wu, g0, u0, j, BN, BK, LAT):  # type: ignore[no-untyped-def]
    g = _matvec_after(x, wg, g0, 0, j, 1, BN, BK, LAT)
    y.store(g / (1.0 + ct.exp(-g)) * _matvec_after(x, wu, u0, 0, j, 1, BN, BK, LAT))


@ct.kernel(pdl=True)
def gate_up_f32_pdl(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                    wg: Tensor[f32, (-1, -1)], wu: Tensor[f32, (-1, -1)], BN: Const[int],
                    BK: Const[int], LAT: Const[int]) -> None:
    _, j = y.tile_index()
    g0, u0 = _weights_at(wg, j, 0, BN, BK, LAT), _weights_at(wu, j, 0, BN, BK, LAT)
    ct.wait_for_predecessor()
    _swiglu_after(y, x, wg, wu, g0, u0, j, BN, BK, LAT)


@ct.kernel(pdl=True)
def gate_up_bf16_pdl(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                     wg: Tensor[bf16, (-1, -1)], wu: Tensor[bf16, (-1, -1)], BN: Const[int],
                     BK: Const[int], LAT: Const[int]) -> None:
    _, j = y.tile_index()
    g0, u0 = _weights_at(wg, j, 0, BN, BK, LAT), _weights_at(wu, j, 0, BN, BK, LAT)
    ct.wait_for_predecessor()
    _swiglu_after(y, x, wg, wu, g0, u0, j, BN, BK, LAT)


# -- the residual add and the norm inside the projection that follows them --------------------
# (norm_gemv, norm_gate_up: one kernel where add_rms_norm + gemv / gate_up are two.) The
# residual stream is never stored as a row: it is the S partial sums of the last split
# projection, whose split 0 also added the stream before it (gemv_residual). Each block of the
# next projection adds the S rows of the whole row itself, normalizes it in registers (H <= HP
# columns, zeros past H), then streams its weight tiles as the plain GEMV does: the row's K
# tiles come from ct.split (an unrolled loop, k a compile-time int), so no K tile of the row is
# loaded or recomputed between two weight tiles. `benchmarks/qwen3_decode.py --fuse-norms`
# times the step made of them (Engine(fuse_norms=True)) against the plain one.
@ct.function
def _normed_row(parts, nw, eps, H, HP, S):  # type: ignore[no-untyped-def]
    return _rms(ct.sum(parts.load_tile((S, HP), (0, 0)), 0, keepdims=True), nw, eps, H, HP)


@ct.kernel
def sum_rms_norm(out: Mut[Tensor[f32, (1, "HP")]], parts: Tensor[f32, (-1, -1)],
                 w: Tensor[f32, (-1,)], eps: f32, H: Const[int], HP: Const[int],
                 S: Const[int]) -> None:
    """The norm of the stream where no projection follows it (the LM head's input)."""
    out.store(_normed_row(parts, w, eps, H, HP, S))


@ct.function
def _row_matvec(x, pw, j, H, HP, BN, BK, LAT):  # type: ignore[no-untyped-def]
    lat = LAT if LAT > 0 else None
    acc = ct.zeros((BN, BK), f32)
    for k, xk in enumerate(ct.split(x, HP // BK, axis=1)):
        if k * BK < H:  # (decided while compiling: the K tiles past the row are left out)
            acc = acc + pw.load((j, k), latency=lat).astype(f32) * xk
    return ct.sum(acc, 1).reshape((1, BN))


@ct.function
def _norm_gemv(y, parts, nw, w, eps, H, HP, S, BN, BK, LAT):  # type: ignore[no-untyped-def]
    _, j = y.tile_index()
    x = _normed_row(parts, nw, eps, H, HP, S)
    y.store(_row_matvec(x, w.partition((BN, BK)), j, H, HP, BN, BK, LAT))


@ct.kernel
def norm_gemv_f32(y: Mut[Tensor[f32, (1, "BN")]], parts: Tensor[f32, (-1, -1)],
                  nw: Tensor[f32, (-1,)], w: Tensor[f32, (-1, -1)], eps: f32, H: Const[int],
                  HP: Const[int], S: Const[int], BN: Const[int], BK: Const[int],
                  LAT: Const[int]) -> None:
    _norm_gemv(y, parts, nw, w, eps, H, HP, S, BN, BK, LAT)


@ct.kernel
def norm_gemv_bf16(y: Mut[Tensor[f32, (1, "BN")]], parts: Tensor[f32, (-1, -1)],
                   nw: Tensor[f32, (-1,)], w: Tensor[bf16, (-1, -1)], eps: f32, H: Const[int],
                   HP: Const[int], S: Const[int], BN: Const[int], BK: Const[int],
                   LAT: Const[int]) -> None:
    _norm_gemv(y, parts, nw, w, eps, H, HP, S, BN, BK, LAT)


# Both products in one unrolled pass, each K tile folded into a (BN, 1) column at once: fewer
# registers than two (BN, BK) sums next to the row (tuning.json's norm_gate_up role).
@ct.function
def _norm_gate_up(y, parts, nw, wg, wu, eps, H, HP, S, BN, BK, LAT):  # type: ignore[no-untyped-def]
    _, j = y.tile_index()
    x = _normed_row(parts, nw, eps, H, HP, S)
    pg, pu = wg.partition((BN, BK)), wu.partition((BN, BK))
    lat = LAT if LAT > 0 else None
    g = ct.zeros((BN, 1), f32)
    u = ct.zeros((BN, 1), f32)
    for k, xk in enumerate(ct.split(x, HP // BK, axis=1)):
        if k * BK < H:
            g = g + ct.sum(pg.load((j, k), latency=lat).astype(f32) * xk, 1, keepdims=True)
            u = u + ct.sum(pu.load((j, k), latency=lat).astype(f32) * xk, 1, keepdims=True)
    g = g.reshape((1, BN))
    y.store(g / (1.0 + ct.exp(-g)) * u.reshape((1, BN)))


@ct.kernel
def norm_gate_up_f32(y: Mut[Tensor[f32, (1, "BN")]], parts: Tensor[f32, (-1, -1)],
                     nw: Tensor[f32, (-1,)], wg: Tensor[f32, (-1, -1)],
                     wu: Tensor[f32, (-1, -1)], eps: f32, H: Const[int], HP: Const[int],
                     S: Const[int], BN: Const[int], BK: Const[int], LAT: Const[int]) -> None:
    _norm_gate_up(y, parts, nw, wg, wu, eps, H, HP, S, BN, BK, LAT)


@ct.kernel
def norm_gate_up_bf16(y: Mut[Tensor[f32, (1, "BN")]], parts: Tensor[f32, (-1, -1)],
                      nw: Tensor[f32, (-1,)], wg: Tensor[bf16, (-1, -1)],
                      wu: Tensor[bf16, (-1, -1)], eps: f32, H: Const[int], HP: Const[int],
                      S: Const[int], BN: Const[int], BK: Const[int], LAT: Const[int]) -> None:
    _norm_gate_up(y, parts, nw, wg, wu, eps, H, HP, S, BN, BK, LAT)


# The split projection that carries the residual stream: y[s] = partial sum s of x @ W^T, and
# split 0 adds the stream before it (the RS rows of `res`: the previous split projection's, or
# the embedding's one row), so the sum of y's rows is the new stream. ADD is False on every
# tensor-parallel rank but the first: the all-reduce of y then counts the stream once.
@ct.function
def _gemv_residual(y, x, w, res, S, RS, BN, BK, LAT, ADD):  # type: ignore[no-untyped-def]
    s, j = y.tile_index()
    t = _matvec(x, w, s, j, S, BN, BK, LAT)
    if ADD and s == 0:
        t = t + ct.sum(res.load_tile((RS, BN), (0, j)), 0, keepdims=True)
    y.store(t)


@ct.kernel
def gemv_residual_f32(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                      w: Tensor[f32, (-1, -1)], res: Tensor[f32, (-1, -1)], S: Const[int],
                      RS: Const[int], BN: Const[int], BK: Const[int], LAT: Const[int],
                      ADD: Const[bool]) -> None:
    _gemv_residual(y, x, w, res, S, RS, BN, BK, LAT, ADD)


@ct.kernel
def gemv_residual_bf16(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                       w: Tensor[bf16, (-1, -1)], res: Tensor[f32, (-1, -1)], S: Const[int],
                       RS: Const[int], BN: Const[int], BK: Const[int], LAT: Const[int],
                       ADD: Const[bool]) -> None:
    _gemv_residual(y, x, w, res, S, RS, BN, BK, LAT, ADD)


# -- the LM head for a greedy pick: the logits, and each block's largest one and its index ----
# (the first on ties; lanes past the vocabulary never win), so the pick reads V / BN pairs
@ct.function
def _head(y, top, top_at, x, w, V, BN, BK, LAT):  # type: ignore[no-untyped-def]
    _, j = y.tile_index()
    t = _matvec(x, w, 0, j, 1, BN, BK, LAT)
    y.store(t)
    cols = (j * BN + ct.arange(BN, i32)).reshape((1, BN))
    t = ct.where(cols < V, t, NEG_INF)
    m = ct.max(t, 1, keepdims=True)
    top.store(m)
    top_at.store(ct.min(ct.where(t == m, cols, V), 1, keepdims=True))


@ct.kernel
def lm_head_f32(y: Mut[Tensor[f32, (1, "BN")]], top: Mut[Tensor[f32, (1, 1)]],
                top_at: Mut[Tensor[i32, (1, 1)]], x: Tensor[f32, (1, -1)],
                w: Tensor[f32, (-1, -1)], V: Const[int], BN: Const[int], BK: Const[int],
                LAT: Const[int]) -> None:
    _head(y, top, top_at, x, w, V, BN, BK, LAT)


@ct.kernel
def lm_head_bf16(y: Mut[Tensor[f32, (1, "BN")]], top: Mut[Tensor[f32, (1, 1)]],
                 top_at: Mut[Tensor[i32, (1, 1)]], x: Tensor[f32, (1, -1)],
                 w: Tensor[bf16, (-1, -1)], V: Const[int], BN: Const[int],
                 BK: Const[int], LAT: Const[int]) -> None:
    _head(y, top, top_at, x, w, V, BN, BK, LAT)


# -- SwiGLU MLP input: y = silu(x @ Wg^T) * (x @ Wu^T), both products in one pass -------------
@ct.function
def _swiglu(y, x, wg, wu, BN, BK, LAT):  # type: ignore[no-untyped-def]
    _, j = y.tile_index()
    g = _matvec(x, wg, 0, j, 1, BN, BK, LAT)
    y.store(g / (1.0 + ct.exp(-g)) * _matvec(x, wu, 0, j, 1, BN, BK, LAT))


@ct.kernel
def gate_up_f32(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                wg: Tensor[f32, (-1, -1)], wu: Tensor[f32, (-1, -1)], BN: Const[int],
                BK: Const[int], LAT: Const[int]) -> None:
    _swiglu(y, x, wg, wu, BN, BK, LAT)


@ct.kernel
def gate_up_bf16(y: Mut[Tensor[f32, (1, "BN")]], x: Tensor[f32, (1, -1)],
                 wg: Tensor[bf16, (-1, -1)], wu: Tensor[bf16, (-1, -1)], BN: Const[int],
                 BK: Const[int], LAT: Const[int]) -> None:
    _swiglu(y, x, wg, wu, BN, BK, LAT)


# -- q/k RMSNorm per head and RoPE of the new token's heads --------------------------------------
# qkv is the (1, (NH + 2 NKV) D) row of the stacked projection: head h is its h-th D columns.
# RoPE is rotate_half: the two halves of a head pair up.
@ct.function
def _halves(qkv, head, D):  # type: ignore[no-untyped-def]
    """Head `head`'s two halves in the row `qkv`: (1, D / 2) each."""
    x1 = qkv.load_tile((1, D // 2), (0, 2 * head))
    return x1, qkv.load_tile((1, D // 2), (0, 2 * head + 1))


@ct.function
def _rotated(x1, x2, c, s, D):  # type: ignore[no-untyped-def]
    return ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), 1).reshape((1, 1, D))


@ct.function
def _head_norm_rope(qkv, head, w, eps, c, s, D):  # type: ignore[no-untyped-def]
    x1, x2 = _halves(qkv, head, D)
    mean_sq = (ct.sum(x1 * x1, 1, keepdims=True) + ct.sum(x2 * x2, 1, keepdims=True)) / D
    r = ct.rsqrt(mean_sq + eps)
    y1 = x1 * r * w.load_tile((D // 2,), 0).reshape((1, D // 2))
    y2 = x2 * r * w.load_tile((D // 2,), 1).reshape((1, D // 2))
    return _rotated(y1, y2, c, s, D)


@ct.function
def _angles(pos, inv_freq, D):  # type: ignore[no-untyped-def]
    """cos and sin of position `pos` times each inverse frequency: (1, D / 2) each."""
    angle = (pos.astype(f32) * inv_freq.load_tile((D // 2,), 0)).reshape((1, D // 2))
    return ct.cos(angle), ct.sin(angle)


# Llama has no q/k norm: its heads are only rotated.
@ct.function
def _head_rope(qkv, head, c, s, D):  # type: ignore[no-untyped-def]
    x1, x2 = _halves(qkv, head, D)
    return _rotated(x1, x2, c, s, D)


# -- decode attention with the new token inside, split over the cache (flash decoding) --------
# Block r = h A + a takes query head h and the cache tiles a, a + A, ... before row pos of its kv
# head, and leaves its unnormalized output row with the running max (mx) and sum (den) of that
# part; A x NH blocks fill the GPU where NH blocks walking the whole cache would not. Cache
# tiles are widened to float32 as they load. The blocks compute the new token's query head (q/k
# norm where the family has one, then RoPE) and its kv head's new key and value from the stacked
# projection's row themselves, and part 0 adds the new token; attention_merge_append then
# merges the parts and stores the new key and value rows into the cache, after every block has
# read it (one launch a layer fewer than a norm + RoPE + append launch before the attention).
# The new key and value are rounded to the cache's dtype as the cache holds them, so the step
# computes what the append-then-attend order did.
@ct.function
def _attend_new(o, mx, den, qh, kn, vn, kc, vc, pos, r, G, A, BN, D):  # type: ignore[no-untyped-def]
    """Part a = r % A of query head r // A's attention (query qh): its kv head's cache tiles a,
    a + A, ... before row pos, then in part 0 the new row (key kn, value vn). (Loading the first
    tiles before the loop, to start them before a PDL wait, made tileiras give this block 384
    threads and 215 KiB of shared memory: 11.2 against 7.6 us a call at 0.6B on the H200.)"""
    a, kvh = r % A, r // A // G
    pk = kc.partition((1, BN, D))
    pv = vc.partition((1, BN, D))
    m_i = ct.full((1, 1), NEG_INF, f32)
    l_i = ct.zeros((1, 1), f32)
    acc = ct.zeros((1, D), f32)
    for j in range(a, ct.cdiv(pos, BN), A):
        kt = pk.load((kvh, j, 0)).reshape((BN, D)).astype(f32)
        s = ct.sum(kt * qh, 1, keepdims=True)
        cols = (j * BN + ct.arange(BN, i32)).reshape((BN, 1))
        s = ct.where(cols < pos, s, NEG_INF)
        m_new = ct.maximum(m_i, ct.max(s, 0, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, 0, keepdims=True)
        vt = pv.load((kvh, j, 0)).reshape((BN, D)).astype(f32)
        acc = acc * alpha + ct.sum(p * vt, 0, keepdims=True)
        m_i = m_new
    first = a == 0
    s_new = ct.where(first, ct.sum(kn * qh, 1, keepdims=True), NEG_INF)
    m_new = ct.maximum(m_i, s_new)
    p_new = ct.where(first, ct.exp(s_new - m_new), 0.0)
    alpha = ct.exp(m_i - m_new)
    o.store(acc * alpha + p_new * vn)
    mx.store(m_new)
    den.store(l_i * alpha + p_new)


@ct.function
def _new_heads(qkv, q_norm, k_norm, c, s, eps, scale, r, NH, NKV, G, A, D, KV, NORM):  # type: ignore[no-untyped-def]
    """The new token's query head r // A (scaled) and its kv head's key and value rows, the
    key and value rounded as the cache holds them: (1, D) each. NORM: Qwen3's q/k RMSNorm
    before the rotation (Llama: the rotation only)."""
    h = r // A
    if NORM:
        qh = _head_norm_rope(qkv, h, q_norm, eps, c, s, D)
        kn = _head_norm_rope(qkv, NH + h // G, k_norm, eps, c, s, D)
    else:
        qh = _head_rope(qkv, h, c, s, D)
        kn = _head_rope(qkv, NH + h // G, c, s, D)
    vn = qkv.load_tile((1, D), (0, NH + NKV + h // G))
    return (qh.reshape((1, D)) * scale, kn.reshape((1, D)).astype(KV).astype(f32),
            vn.astype(KV).astype(f32))


@ct.function
def _attention_new(o, mx, den, qkv, q_norm, k_norm, inv_freq, kc, vc, pos_t, scale, eps,  # type: ignore[no-untyped-def]
                   NH, NKV, G, A, BN, D, KV, NORM):
    r, _ = o.tile_index()
    pos = _scalar(pos_t)
    c, s = _angles(pos, inv_freq, D)
    qh, kn, vn = _new_heads(qkv, q_norm, k_norm, c, s, eps, scale, r, NH, NKV, G, A, D, KV, NORM)
    _attend_new(o, mx, den, qh, kn, vn, kc, vc, pos, r, G, A, BN, D)


@ct.kernel
def decode_attention_new(o: Mut[Tensor[f32, (1, "D")]], mx: Mut[Tensor[f32, (1, 1)]],
                         den: Mut[Tensor[f32, (1, 1)]], qkv: Tensor[f32, (1, -1)],
                         q_norm: Tensor[f32, ("D",)], k_norm: Tensor[f32, ("D",)],
                         inv_freq: Tensor[f32, (-1,)], kc: Tensor[KV, (-1, -1, "D")],
                         vc: Tensor[KV, (-1, -1, "D")], pos_t: Tensor[i32, (1,)],
                         scale: f32, eps: f32, NH: Const[int], NKV: Const[int], G: Const[int],
                         A: Const[int], BN: Const[int], D: Const[int],
                         KV: Const[DType]) -> None:
    """Qwen3's form: the new query and key heads RMS-normed, then rotated."""
    _attention_new(o, mx, den, qkv, q_norm, k_norm, inv_freq, kc, vc, pos_t, scale, eps,
                   NH, NKV, G, A, BN, D, KV, True)


@ct.kernel
def decode_attention_new_rope(o: Mut[Tensor[f32, (1, "D")]], mx: Mut[Tensor[f32, (1, 1)]],
                              den: Mut[Tensor[f32, (1, 1)]], qkv: Tensor[f32, (1, -1)],
                              inv_freq: Tensor[f32, (-1,)], kc: Tensor[KV, (-1, -1, "D")],
                              vc: Tensor[KV, (-1, -1, "D")], pos_t: Tensor[i32, (1,)],
                              scale: f32, NH: Const[int], NKV: Const[int], G: Const[int],
                              A: Const[int], BN: Const[int], D: Const[int],
                              KV: Const[DType]) -> None:
    """Llama's form: the new query and key heads only rotated (inv_freq stands in for the
    norms, which the NORM=False form never reads)."""
    _attention_new(o, mx, den, qkv, inv_freq, inv_freq, inv_freq, kc, vc, pos_t, scale, 0.0,
                   NH, NKV, G, A, BN, D, KV, False)


# -- the merge of each kv head's G query heads' A parts, and the append of its new rows -------
# Each part weighs exp(its max - the head's max) (a part with no rows has max NEG_INF: weight
# 0). The o-projection is then a plain split GEMV over the attention row: on the H200 this was
# 186 us a 4B step faster than merging inside the projection's K loop (546 against 360 us),
# where each K tile's weights waited for its merge; at 0.6B the two were even.
@ct.function
def _merged_group(o, mx, den, h, G, A, D):  # type: ignore[no-untyped-def]
    """Kv head h's G query heads' rows (G, D), from their G A parts (rows h G A ...)."""
    m = mx.load_tile((G * A, 1), (h, 0)).reshape((G, A, 1))
    w = ct.exp(m - ct.max(m, 1, keepdims=True))
    total = ct.sum(w * den.load_tile((G * A, 1), (h, 0)).reshape((G, A, 1)), 1)
    return ct.sum(w * o.load_tile((G * A, D), (h, 0)).reshape((G, A, D)), 1) / total


@ct.function
def _merged(o, mx, den, h, A, D):  # type: ignore[no-untyped-def]
    """Head h's attention row (1, D) from its A parts."""
    m = mx.load_tile((A, 1), (h, 0))
    w = ct.exp(m - ct.max(m, 0, keepdims=True))
    total = ct.sum(w * den.load_tile((A, 1), (h, 0)), 0, keepdims=True)
    return ct.sum(w * o.load_tile((A, D), (h, 0)), 0, keepdims=True) / total


# attention_merge_append: the merge of the A parts of kv head h's G query heads into its
# (1, G D) slab of the attention row, and the append of the new key and value rows at pos to
# its cache slabs (the new key normed and rotated as the attention blocks did). The caches come
# as (1, NKV, S, D) views, so that their slabs' grid is the attention row's (1, NKV). GROUPED
# (G a power of two) loads the G heads' parts at once instead of one head after another.
@ct.function
def _merge_append(attn, kc, vc, o, mx, den, qkv, k_norm, inv_freq, pos_t, eps,  # type: ignore[no-untyped-def]
                  NH, NKV, G, A, D, KV, GROUPED, NORM):
    _, h, _, _ = kc.tile_index()
    pos = _scalar(pos_t)
    c, s = _angles(pos, inv_freq, D)
    if NORM:
        kn = _head_norm_rope(qkv, NH + h, k_norm, eps, c, s, D)
    else:
        kn = _head_rope(qkv, NH + h, c, s, D)
    if GROUPED:  # G a power of two: the G A parts' rows in one load each, all heads at once
        attn.store(_merged_group(o, mx, den, h, G, A, D).reshape((1, G * D)))
    else:
        for g in range(G):
            attn.store(_merged(o, mx, den, h * G + g, A, D), (0, g))
    kc.store(kn.reshape((1, 1, 1, D)).astype(KV), (0, 0, pos, 0))
    v = qkv.load_tile((1, D), (0, NH + NKV + h))
    vc.store(v.reshape((1, 1, 1, D)).astype(KV), (0, 0, pos, 0))


@ct.kernel
def attention_merge_append(attn: Mut[Tensor[f32, (1, "GD")]],
                           kc: Mut[Tensor[KV, (1, 1, -1, "D")]],
                           vc: Mut[Tensor[KV, (1, 1, -1, "D")]], o: Tensor[f32, (-1, "D")],
                           mx: Tensor[f32, (-1, 1)], den: Tensor[f32, (-1, 1)],
                           qkv: Tensor[f32, (1, -1)], k_norm: Tensor[f32, ("D",)],
                           inv_freq: Tensor[f32, (-1,)], pos_t: Tensor[i32, (1,)], eps: f32,
                           NH: Const[int], NKV: Const[int], G: Const[int], A: Const[int],
                           D: Const[int], GD: Const[int], KV: Const[DType],
                           GROUPED: Const[bool]) -> None:
    """Qwen3's form: the new key head RMS-normed, then rotated."""
    _merge_append(attn, kc, vc, o, mx, den, qkv, k_norm, inv_freq, pos_t, eps, NH, NKV, G, A,
                  D, KV, GROUPED, True)


@ct.kernel
def attention_merge_append_rope(attn: Mut[Tensor[f32, (1, "GD")]],
                                kc: Mut[Tensor[KV, (1, 1, -1, "D")]],
                                vc: Mut[Tensor[KV, (1, 1, -1, "D")]],
                                o: Tensor[f32, (-1, "D")], mx: Tensor[f32, (-1, 1)],
                                den: Tensor[f32, (-1, 1)], qkv: Tensor[f32, (1, -1)],
                                inv_freq: Tensor[f32, (-1,)], pos_t: Tensor[i32, (1,)],
                                NH: Const[int], NKV: Const[int], G: Const[int], A: Const[int],
                                D: Const[int], GD: Const[int], KV: Const[DType],
                                GROUPED: Const[bool]) -> None:
    """Llama's form: the new key head only rotated (inv_freq stands in for the norm)."""
    _merge_append(attn, kc, vc, o, mx, den, qkv, inv_freq, inv_freq, pos_t, 0.0, NH, NKV, G, A,
                  D, KV, GROUPED, False)


# -- greedy choice: the index of the largest logit (the first one on ties) -------------------
# One tile of candidates folded into the running (best, idx): values t (lanes that must not win
# already NEG_INF) and their token ids at (V where a lane is no token). The tile's first maximum
# replaces the running one only when it is larger, so ties keep the lowest id, as np.argmax.
@ct.function
def _fold_max(t, at, best, idx, V):  # type: ignore[no-untyped-def]
    m = ct.max(t, 0, keepdims=True)
    first = ct.min(ct.where(t == m, at, V), 0, keepdims=True)
    better = m > best
    return ct.where(better, m, best), ct.where(better, first, idx)


# One block walks the row in BV-wide tiles; the lanes past the vocabulary (zeros when loaded)
# are masked out so they can never win.
@ct.function
def _argmax(x, V, BV):  # type: ignore[no-untyped-def]
    best = ct.full((1,), NEG_INF, f32)
    idx = ct.zeros((1,), i32)
    for j in range(ct.cdiv(V, BV)):
        cols = j * BV + ct.arange(BV, i32)
        t = ct.where(cols < V, x.load_tile((1, BV), (0, j)).reshape((BV,)), NEG_INF)
        best, idx = _fold_max(t, cols, best, idx, V)
    return idx


@ct.kernel
def argmax_row(out: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (1, -1)], V: Const[int],
               BV: Const[int]) -> None:
    out.store(_argmax(x, V, BV))


# -- the end of a step: the chosen token goes to history[pos + 1], and pos advances -----------
# While pos + 1 is still inside the prompt, history[pos + 1] keeps the prompt's token (the
# step was a prefill step); the history is one slab, so the store is masked past its end.
@ct.function
def _advance(history, pos_t, n_prompt, token):  # type: ignore[no-untyped-def]
    nxt = pos_t.load() + 1
    i = nxt.reshape(())
    keep = nxt < n_prompt.load_tile((1,), 0)
    history.store(ct.where(keep, history.load((1,), i), token), i)
    pos_t.store(nxt)


# The greedy pick over the LM head's per-block maxima (NB of them): the largest, and of the
# blocks that have it the first one's index, so ties go to the lowest token as np.argmax.
@ct.function
def _pick(top, top_at, NB, V, BV):  # type: ignore[no-untyped-def]
    best = ct.full((1,), NEG_INF, f32)
    idx = ct.zeros((1,), i32)
    for j in range(ct.cdiv(NB, BV)):
        cols = j * BV + ct.arange(BV, i32)
        t = ct.where(cols < NB, top.load_tile((1, BV), (0, j)).reshape((BV,)), NEG_INF)
        at = ct.where(cols < NB, top_at.load_tile((1, BV), (0, j)).reshape((BV,)), V)
        best, idx = _fold_max(t, at, best, idx, V)
    return idx


@ct.kernel
def greedy_next(history: Mut[Tensor[i32, (-1,)]], pos_t: Mut[Tensor[i32, (1,)]],
                n_prompt: Tensor[i32, (1,)], top: Tensor[f32, (1, -1)],
                top_at: Tensor[i32, (1, -1)], NB: Const[int], V: Const[int],
                BV: Const[int]) -> None:
    _advance(history, pos_t, n_prompt, _pick(top, top_at, NB, V, BV))


# The same pick over the candidates of a vocabulary split over ranks (tensor parallel): NB =
# ranks x NBR maxima in rank order, each with its index inside its rank's CH rows, so rank
# r's candidate i is token r CH + i. Folded as _pick does, the lowest global index wins ties:
# np.argmax over the whole vocabulary. Every rank runs it on the same gathered bytes.
@ct.function
def _pick_sharded(top, top_at, NB, NBR, CH, V, BV):  # type: ignore[no-untyped-def]
    best = ct.full((1,), NEG_INF, f32)
    idx = ct.zeros((1,), i32)
    for j in range(ct.cdiv(NB, BV)):
        cols = j * BV + ct.arange(BV, i32)
        t = ct.where(cols < NB, top.load_tile((1, BV), (0, j)).reshape((BV,)), NEG_INF)
        local = top_at.load_tile((1, BV), (0, j)).reshape((BV,))
        at = ct.where(cols < NB, local + (cols // NBR) * CH, V)
        best, idx = _fold_max(t, at, best, idx, V)
    return idx


@ct.kernel
def greedy_next_sharded(history: Mut[Tensor[i32, (-1,)]], pos_t: Mut[Tensor[i32, (1,)]],
                        n_prompt: Tensor[i32, (1,)], top: Tensor[f32, (1, -1)],
                        top_at: Tensor[i32, (1, -1)], NB: Const[int], NBR: Const[int],
                        CH: Const[int], V: Const[int], BV: Const[int]) -> None:
    _advance(history, pos_t, n_prompt, _pick_sharded(top, top_at, NB, NBR, CH, V, BV))


# -- sampling: temperature, top-k, top-p, then one draw of ct.rand (Philox) -------------------
# Logits are ranked by an integer key with the float order (the bits, negatives flipped), so a
# threshold is found exactly by bisection over the 2**32 keys: 32 passes over the row each.
# Kept: the logits with key >= the k-th largest key, then, of those, the largest ones whose
# probability mass (softmax at temperature T) reaches top_p. The draw u * mass walks the kept
# probabilities in vocabulary order (an inverse CDF); the Philox counter is the position.
@ct.function
def _narrowed(lo, hi, mid, ok):  # type: ignore[no-untyped-def]
    """A bisection's step: [mid, hi) where `ok` (mid still meets the bound), else [lo, mid)."""
    return ct.where(ok, mid, lo), ct.where(ok, hi, mid)


@ct.function
def _float_keys(t, valid):  # type: ignore[no-untyped-def]
    """The float-order keys of tile t (i64; lanes not `valid` get one below every key)."""
    bits = t.bitcast(i32)
    return ct.where(valid, ct.where(bits < 0, bits ^ 2147483647, bits).astype(i64), KEY_LOW - 1)


@ct.function
def _keys(x, j, V, BV):  # type: ignore[no-untyped-def]
    """Tile j of the row: its keys (lanes past V are not valid)."""
    cols = j * BV + ct.arange(BV, i32)
    return _float_keys(x.load_tile((1, BV), (0, j)).reshape((BV,)), cols < V)


@ct.function
def _probs(x, j, key, floor, top, inv_t, BV):  # type: ignore[no-untyped-def]
    """exp((x - top) / T) for the lanes with key >= floor, 0 for the others."""
    t = x.load_tile((1, BV), (0, j)).reshape((BV,))
    return ct.where(key >= floor, ct.exp((t - top) * inv_t), 0.0)


@ct.function
def _count_at_least(x, mid, V, BV):  # type: ignore[no-untyped-def]
    n = ct.zeros((1,), i32)
    for j in range(ct.cdiv(V, BV)):
        n = n + ct.sum(ct.where(_keys(x, j, V, BV) >= mid, 1, 0), 0, keepdims=True)
    return n


@ct.function
def _mass_at_least(x, mid, floor, top, inv_t, V, BV):  # type: ignore[no-untyped-def]
    m = ct.zeros((1,), f32)
    for j in range(ct.cdiv(V, BV)):
        key = _keys(x, j, V, BV)
        m = m + ct.sum(ct.where(key >= mid, _probs(x, j, key, floor, top, inv_t, BV), 0.0), 0,
                       keepdims=True)
    return m


@ct.function
def _sample(x, seed, offset, inv_t, top_k, top_p, V, BV):  # type: ignore[no-untyped-def]
    lo = ct.full((1,), KEY_LOW, i64)  # count(key >= lo) = V >= top_k
    hi = ct.full((1,), KEY_END, i64)  # count(key >= hi) = 0 < top_k
    for _ in range(32):
        mid = (lo + hi) // 2
        ok = _count_at_least(x, mid, V, BV) >= top_k
        lo, hi = _narrowed(lo, hi, mid, ok)
    floor = lo  # the k-th largest key
    best = _argmax(x, V, BV)
    top = x.load_tile((1, 1), (0, best.reshape(()))).reshape((1,))  # the largest logit
    total = _mass_at_least(x, floor, floor, top, inv_t, V, BV)
    hi = ct.full((1,), KEY_END, i64)
    for _ in range(32):  # the largest key whose kept mass still reaches top_p of the total
        mid = (lo + hi) // 2
        ok = _mass_at_least(x, mid, floor, top, inv_t, V, BV) >= total * top_p
        lo, hi = _narrowed(lo, hi, mid, ok)
    target = ct.rand(seed, offset) * _mass_at_least(x, lo, lo, top, inv_t, V, BV)
    run = ct.zeros((1,), f32)
    pick = best  # if rounding leaves the target past the last cumulative sum
    found = ct.zeros((1,), i32)
    for j in range(ct.cdiv(V, BV)):
        cols = j * BV + ct.arange(BV, i32)
        c = ct.cumsum(_probs(x, j, _keys(x, j, V, BV), lo, top, inv_t, BV), 0) + run
        first = ct.min(ct.where(c > target, cols, V), 0, keepdims=True)
        take = (found == 0) & (first < V)
        pick = ct.where(take, first, pick)
        found = ct.where(take, 1, found)
        run = ct.max(c, 0, keepdims=True)
    return pick


# -- the same draw over the few blocks that can hold the kept tokens ---------------------------
# The LM head leaves each block's largest logit (`top`, NB blocks of BN). The k-th largest key
# of the row is at least the k-th largest block maximum L (those k maxima are k logits), so every
# token that top-k keeps lies in a block whose maximum is >= L. When at most C blocks qualify,
# their logits (in vocabulary order) are gathered into one (C, BN) tile and every pass of the
# draw runs over that tile instead of the row; otherwise (ties, top_k past C blocks) the draw
# walks the row as sample_next does. The same keys, thresholds and order: the same token.
@ct.function
def _kth_key(keys, k):  # type: ignore[no-untyped-def]
    """The largest key m with at least k of `keys` (a 1-d tile) >= m: the k-th largest."""
    lo = ct.full((1,), KEY_LOW, i64)
    hi = ct.full((1,), KEY_END, i64)
    for _ in range(32):
        mid = (lo + hi) // 2
        ok = ct.sum(ct.where(keys >= mid, 1, 0), 0, keepdims=True) >= k
        lo, hi = _narrowed(lo, hi, mid, ok)
    return lo


@ct.function
def _gather_blocks(x, keep, NBP, BN, C, V):  # type: ignore[no-untyped-def]
    """The logits of the first C blocks with `keep` (NBP lanes), in vocabulary order, as one
    flat tile, with their token ids (V for lanes of no token: past V, or a slot left empty)."""
    idx = ct.arange(NBP, i32)
    slot = ct.arange(C, i32).reshape((C, 1))
    lane = ct.arange(BN, i32).reshape((1, BN))
    vals = ct.zeros((C, BN), f32)
    ids = ct.full((C, BN), V, i32)
    prev = ct.full((1,), -1, i32)
    for i in range(C):
        b = ct.min(ct.where(keep & (idx > prev), idx, NBP), 0, keepdims=True)
        row = x.load_tile((1, BN), (0, b.reshape(())))
        cols = b.reshape((1, 1)) * BN + lane
        vals = ct.where(slot == i, row, vals)
        ids = ct.where(slot == i, ct.where(cols < V, cols, V), ids)
        prev = b
    return vals.reshape((C * BN,)), ids.reshape((C * BN,))


@ct.function
def _sample_gathered(vals, ids, seed, offset, inv_t, top_k, top_p, V):  # type: ignore[no-untyped-def]
    """_sample's draw over gathered logits `vals` of tokens `ids` (V: no token)."""
    valid = ids < V
    keys = _float_keys(vals, valid)
    floor = _kth_key(keys, top_k)
    top = ct.max(ct.where(valid, vals, NEG_INF), 0, keepdims=True)
    best = ct.min(ct.where(valid & (vals == top), ids, V), 0, keepdims=True)
    probs = ct.where(keys >= floor, ct.exp((vals - top) * inv_t), 0.0)
    total = ct.sum(probs, 0, keepdims=True)
    lo = floor
    hi = ct.full((1,), KEY_END, i64)
    for _ in range(32):  # the largest key whose kept mass still reaches top_p of the total
        mid = (lo + hi) // 2
        ok = ct.sum(ct.where(keys >= mid, probs, 0.0), 0, keepdims=True) >= total * top_p
        lo, hi = _narrowed(lo, hi, mid, ok)
    kept = ct.where(keys >= lo, probs, 0.0)
    target = ct.rand(seed, offset) * ct.sum(kept, 0, keepdims=True)
    first = ct.min(ct.where(ct.cumsum(kept, 0) > target, ids, V), 0, keepdims=True)
    return ct.where(first < V, first, best)


@ct.kernel
def sample_next_blocks(history: Mut[Tensor[i32, (-1,)]], pos_t: Mut[Tensor[i32, (1,)]],
                       n_prompt: Tensor[i32, (1,)], x: Tensor[f32, (1, -1)],
                       top: Tensor[f32, (1, -1)], seed: i64, inv_t: f32, top_k: i32,
                       top_p: f32, V: Const[int], BV: Const[int], NB: Const[int],
                       NBP: Const[int], BN: Const[int], C: Const[int]) -> None:
    offset = pos_t.load()
    lanes = ct.arange(NBP, i32)
    maxima = _float_keys(top.load_tile((1, NBP), (0, 0)).reshape((NBP,)), lanes < NB)
    keep = maxima >= _kth_key(maxima, top_k)
    if ct.sum(ct.where(keep, 1, 0), 0).reshape(()) <= C:
        vals, ids = _gather_blocks(x, keep, NBP, BN, C, V)
        token = _sample_gathered(vals, ids, seed, offset, inv_t, top_k, top_p, V)
    else:
        token = _sample(x, seed, offset, inv_t, top_k, top_p, V, BV)
    _advance(history, pos_t, n_prompt, token)


@ct.kernel
def sample_next(history: Mut[Tensor[i32, (-1,)]], pos_t: Mut[Tensor[i32, (1,)]],
                n_prompt: Tensor[i32, (1,)], x: Tensor[f32, (1, -1)], seed: i64, inv_t: f32,
                top_k: i32, top_p: f32, V: Const[int], BV: Const[int]) -> None:
    token = _sample(x, seed, pos_t.load(), inv_t, top_k, top_p, V, BV)
    _advance(history, pos_t, n_prompt, token)
