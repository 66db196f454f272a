"""Kernels ported from Liger-Kernel, vLLM, SGLang, mamba, Triton's tutorials and the like, written
as their authors write them (guard clauses, `while`/`break`, NumPy constants, helpers with
keyword defaults, Const defaults, shape slices, Acc scatters, persistent `continue`): each runs
in tests/runtime/test_ported_kernels.py against NumPy, on the interpreter and under -m gpu on
CUDA, and the checker finds nothing in this file."""


import numpy as np

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, bf16, f8e4m3, f16, f32, i8, i32, i64, u8

SQRT_2_OVER_PI = 0.7978845608028654


@ct.kernel
def rope_neox(q: Mut[Tensor[f32, (1, "H", "D")]], cos: Tensor[f32, (-1, -1)],
              sin: Tensor[f32, (-1, -1)], pos: Tensor[i32, (-1,)], H: Const[int], D: Const[int]):
    t, _, _ = q.tile_index()
    p = pos.load_tile((1,), (t,)).reshape(())
    half = D // 2
    c = cos.load_at((1, half), (p, 0)).reshape((1, 1, half))
    s = sin.load_at((1, half), (p, 0)).reshape((1, 1, half))
    x = q.load()
    x1, x2 = ct.split(x, 2, axis=2)
    q.store(ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=2))


@ct.kernel
def group_quant(out: Mut[Tensor[u8, (1, "G")]], scales: Mut[Tensor[f32, (1, 1)]],
                x: Tensor[f32, (-1, -1)], G: Const[int]):
    t = ct.load_tile_like(x, out)
    amax = ct.max(ct.abs(t))
    s = ct.maximum(amax, 1e-10) / 448.0
    out.store((t / s).astype(f8e4m3).bitcast(u8))
    scales.store(ct.broadcast_to(s, (1, 1)))


@ct.kernel
def add_rmsnorm(x: Mut[Tensor[f32, (1, "N")]], res: Mut[Tensor[f32, (1, "N")]],
                w: Tensor[f32, ("N",)], eps: f32, N: Const[int]):
    h = x.load() + res.load()
    res.store(h)
    r = ct.rsqrt(ct.sum(h * h, 1, keepdims=True) / N + eps)
    x.store(h * r * w.load_tile(x.tile_shape[1:], (0,)).reshape(x.tile_shape))


@ct.kernel
def searchsorted(out: Mut[Tensor[i32, (1,)]], offs: Tensor[i32, (-1,)], vals: Tensor[i32, (-1,)]):
    (i,) = out.tile_index()
    v = vals.load_tile((1,), (i,)).reshape(())
    lo = 0
    hi = offs.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if offs.load_tile((1,), (mid,)).reshape(()) <= v:
            lo = mid + 1
        else:
            hi = mid
    out.store(ct.broadcast_to(lo - 1, (1,)))


@ct.kernel
def scan_ssm(y: Mut[Tensor[f32, ("L", "D")]], x: Tensor[f32, (-1, -1, "D")], a: Tensor[f32, ("D",)],
             L: Const[int], D: Const[int]):
    b, _ = y.tile_index()
    decay = a.load_tile((D,), (0,)).reshape((1, D))
    h = ct.zeros((1, D), f32)
    for t in range(L):
        h = h * decay + x.load_tile((1, 1, D), (b, t, 0)).reshape((1, D))
        y.store(h, (t, 0))


@ct.kernel
def embed_bwd(gw: Acc[Tensor[f32, (-1, "D")], "add"], g: Tensor[f32, (-1, "D")],
              ids: Tensor[i32, (-1,)], D: Const[int], BT: Const[int]):
    blk = ct.block_id(0)
    rows = blk * BT + ct.arange(BT, i32)
    tok = ct.gather(ids, (rows,), padding=-1)
    vals = g.load_tile((BT, D), (blk, 0))
    cols = ct.arange(D, i32)
    gw.add_at((tok.reshape((BT, 1)), cols.reshape((1, D))), vals)


@ct.function
def _row_stats(t, n):  # type: ignore[no-untyped-def]
    m = ct.sum(t, 1, keepdims=True) / n
    d = t - m
    return m, ct.sum(d * d, 1, keepdims=True) / n


@ct.kernel
def ln_bwd_dgamma(dg: Acc[Tensor[f32, ("N",)], "add"], dx_rows: Mut[Tensor[f32, ("BM", "N")]],
                  x: Tensor[f32, (-1, "N")], dy: Tensor[f32, (-1, "N")], BM: Const[int],
                  N: Const[int]):
    t = ct.load_tile_like(x, dx_rows)
    m, v = _row_stats(t, n=N)
    xhat = (t - m) * ct.rsqrt(v + 1e-5)
    g = ct.load_tile_like(dy, dx_rows)
    dg.add(ct.sum(g * xhat, 0), (0,))
    dx_rows.store(g)


@ct.kernel
def causal_softmax_rows(out: Mut[Tensor[f32, (1, "N")]], s: Tensor[f32, (-1, "N")], N: Const[int],
                        BN: Const[int]):
    (r, _) = out.tile_index()
    m = ct.full((1, 1), -np.inf, f32)
    den = ct.zeros((1, 1), f32)
    for j in range(r // BN + 1):
        cols = j * BN + ct.arange(BN, i32).reshape((1, BN))
        t = ct.where(cols <= r, s.load_tile((1, BN), (r, j)), -np.inf)
        mn = ct.maximum(m, ct.max(t, 1, keepdims=True))
        den = den * ct.exp(m - mn) + ct.sum(ct.exp(t - mn), 1, keepdims=True)
        m = mn
    for j in range(N // BN):
        cols = j * BN + ct.arange(BN, i32).reshape((1, BN))
        t = ct.where(cols <= r, s.load_tile((1, BN), (r, j)), -np.inf)
        out.store(ct.exp(t - m) / den, (0, j))


@ct.kernel
def i8_gemm(c: Mut[Tensor[f32, ("BM", "BN")]], a: Tensor[i8, (-1, -1)], b: Tensor[i8, (-1, -1)],
            sa: Tensor[f32, (-1,)], sb: Tensor[f32, (-1,)], BM: Const[int], BN: Const[int],
            BK: Const[int]):
    i, j = c.tile_index()
    acc = ct.zeros((BM, BN), i32)
    for k in range(ct.cdiv(a.shape[1], BK)):
        acc = ct.mma(a.load_tile((BM, BK), (i, k)), b.load_tile((BK, BN), (k, j)), acc)
    rows = sa.load_tile((BM,), (i,)).reshape((BM, 1))
    c.store(acc.astype(f32) * rows * sb.load_tile((BN,), (j,)).reshape((1, BN)))


@ct.kernel
def persistent_scale(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)], skip_row: i32):
    for zt in z.tiles():
        i, _ = zt.tile_index()
        if i == skip_row:
            continue
        zt.store(ct.load_tile_like(x, zt) * 2.0)


@ct.function
def gelu_tanh(x):  # type: ignore[no-untyped-def]
    return 0.5 * x * (1.0 + ct.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


@ct.function
def load_row(t, r, B):  # type: ignore[no-untyped-def]
    return t.load_tile((1, B), (r, 0)).astype(f32)


@ct.kernel
def gelu_rows(z: Mut[Tensor[bf16, (1, "B")]], x: Tensor[bf16, (-1, "B")], B: Const[int] = 64):
    (r, _) = z.tile_index()
    z.store(gelu_tanh(load_row(x, r, B)).astype(bf16))


@ct.kernel
def topp_mask(z: Mut[Tensor[f32, (1, "V")]], p: Tensor[f32, (-1, "V")], top_p: f32, V: Const[int]):
    t = ct.load_tile_like(p, z)
    c = ct.cumsum(t, 1)
    keep = (c - t) < top_p
    z.store(ct.where(keep, t, 0.0))


@ct.kernel
def flash_causal(o: Mut[Tensor[f32, ("BM", "D")]], q: Tensor[f32, (-1, "D")],
                 k: Tensor[f32, (-1, "D")], v: Tensor[f32, (-1, "D")], BM: Const[int],
                 BN: Const[int], D: Const[int]):
    (i, _) = o.tile_index()
    qt = ct.load_tile_like(q, o) * ct.rsqrt(ct.full((), D, f32))
    m = ct.full((BM, 1), float("-inf"), f32)
    den = ct.zeros((BM, 1), f32)
    acc = ct.zeros((BM, D), f32)
    rows = i * BM + ct.arange(BM, i32).reshape((BM, 1))
    j = 0
    n = k.shape[0]
    while j * BN < n:
        if j * BN > i * BM + BM - 1:
            break
        kt = k.load_tile((BN, D), (j, 0))
        s = ct.mma(qt, kt.transpose(), ct.zeros((BM, BN), f32))
        cols = j * BN + ct.arange(BN, i32).reshape((1, BN))
        s = ct.where((cols <= rows) & (cols < n), s, -np.inf)
        mn = ct.maximum(m, ct.max(s, 1, keepdims=True))
        pexp = ct.exp(s - mn)
        alpha = ct.exp(m - mn)
        den = den * alpha + ct.sum(pexp, 1, keepdims=True)
        acc = acc * alpha + ct.mma(pexp, v.load_tile((BN, D), (j, 0)), ct.zeros((BM, D), f32))
        m = mn
        j += 1
    o.store(acc / den)


@ct.kernel
def clipped(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)], lo: f32, hi: f32, n: i32):
    (b,) = z.tile_index()
    t = ct.load_tile_like(x, z)
    if b * 16 < n and lo < hi:
        t = ct.clamp(t, lo, hi)
    elif not (lo < hi):
        t = t * 0.0
    z.store(t if n > 0 else t + 1.0)


@ct.function
def rms(x, eps=1e-6):  # type: ignore[no-untyped-def]
    return x * ct.rsqrt(ct.sum(x * x, -1, keepdims=True) / x.shape[-1] + eps)


@ct.function
def norm_scale(x, w, *, eps=1e-6):  # type: ignore[no-untyped-def]
    return rms(x, eps=eps) * w


@ct.kernel
def grid3(z: Mut[Tensor[f32, (1, 1, 8)]], x: Tensor[f32, (-1, -1, 8)], w: Tensor[f32, (8,)]):
    a, b, _ = z.tile_index()
    n0, n1 = ct.num_blocks(0), ct.num_blocks(1)
    t = ct.load_tile_like(x, z)
    at = (a * n1 + b + 0 * n0).astype(f32)
    z.store(norm_scale(t, w.load_tile((8,), (0,)).reshape((1, 1, 8))) + at)


@ct.kernel
def dropout(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)], p: f32, seed: i32):
    (b,) = z.tile_index()
    offs = b * 128 + ct.arange(128, i32)
    keep = ct.rand(seed, offs) > p
    z.store(ct.where(keep, ct.load_tile_like(x, z) / (1.0 - p), 0.0))


@ct.kernel
def int4_dequant(z: Mut[Tensor[f16, (1, 64)]], q: Tensor[u8, (-1, 32)], s: Tensor[f16, (-1,)]):
    (r, _) = z.tile_index()
    packed = q.load_tile((1, 32), (r, 0))
    lo = (packed & 0xF).astype(i32) - 8
    hi = (packed >> 4).astype(i32) - 8
    both = ct.cat((lo.reshape((1, 32, 1)), hi.reshape((1, 32, 1))), axis=2).reshape((1, 64))
    z.store(both.astype(f16) * s.load_tile((1,), (r,)).reshape((1, 1)))


@ct.kernel
def xent(loss: Mut[Tensor[f32, (1,)]], logits: Tensor[f32, (-1, "V")], labels: Tensor[i64, (-1,)],
         ignore_index: Const[int] = -100, V: Const[int] = 64):
    (r,) = loss.tile_index()
    label = labels.load_tile((1,), (r,)).reshape(())
    if label == ignore_index:
        loss.store(ct.zeros((1,), f32))
        return
    t = logits.load_tile((1, V), (r, 0))
    m = ct.max(t)
    lse = ct.log(ct.sum(ct.exp(t - m))) + m
    picked = ct.sum(ct.where(ct.arange(V, i64).reshape((1, V)) == label, t, 0.0))
    loss.store(ct.broadcast_to(lse - picked, (1,)))


@ct.kernel
def first_negative(out: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (-1,)]):
    n = x.shape[0]
    i = 0
    found = -1
    while True:
        if i >= n:
            break
        if x.load_tile((1,), (i,)).reshape(()) < 0.0:
            found = i
            break
        i += 1
    out.store(ct.broadcast_to(found, (1,)))
