"""Kernels that read a tensor over a Mut slab whose extents are not powers of two
(`ct.load_tile_like(x, z)`, `zt.load()` in persistent loops), written as a user would. Shared by
the interpreter tests, the GPU tests (tests/runtime/test_slab_like.py) and the sm_90 compile tests
(tests/lower/test_slab_compile.py)."""

import math

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32


@ct.kernel
def rms_norm(y: Mut[Tensor[f32, ("BM", "N")]], x: Tensor[f32, (-1, "N")],
             w: Tensor[f32, ("N",)], eps: f32, BM: Const[int], N: Const[int]) -> None:
    # Rows of any width: the slab (BM, N) is one tile of y.tile_shape, zero past the row.
    t = ct.load_tile_like(x, y)
    mean_sq = ct.sum(t * t, 1, keepdims=True) / N
    scale = w.load_tile((y.tile_shape[1],), (0,))
    y.store(t * ct.rsqrt(mean_sq + eps) * scale)


@ct.kernel
def layer_norm(y: Mut[Tensor[f32, (1, "N")]], x: Tensor[f32, (-1, "N")],
               w: Tensor[f32, ("N",)], b: Tensor[f32, ("N",)], eps: f32,
               N: Const[int]) -> None:
    t = ct.load_tile_like(x, y)  # (1, 128) for N = 100: the 28 columns past it read 0
    width = y.tile_shape[1]
    mu = ct.sum(t, 1, keepdims=True) / N
    cols = ct.arange(width).reshape((1, width))
    d = ct.where(cols < N, t - mu, 0.0)
    r = ct.rsqrt(ct.sum(d * d, 1, keepdims=True) / N + eps)
    scale = w.load_tile((width,), (0,))
    shift = b.load_tile((width,), (0,))
    y.store(d * r * scale + shift)


@ct.kernel
def decode_attention(out: Mut[Tensor[f32, (1, 1, "D")]], q: Tensor[f32, (-1, -1, "D")],
                     k: Tensor[f32, (-1, "S", "D")], v: Tensor[f32, (-1, "S", "D")],
                     scale: f32, BS: Const[int], S: Const[int], D: Const[int]) -> None:
    # One block per (batch, head); a head of size 80 is a (1, 1, 128) tile, zero past 80.
    b = out.tile_index()[0]
    dt = out.tile_shape[2]
    qt = ct.load_tile_like(q, out).reshape((1, dt))
    m = ct.full((1, 1), -math.inf, f32)
    total = ct.zeros((1, 1), f32)
    acc = ct.zeros((1, dt), f32)
    for j in range(ct.cdiv(S, BS)):
        kt = k.load_tile((1, BS, dt), (b, j, 0)).reshape((BS, dt))
        vt = v.load_tile((1, BS, dt), (b, j, 0)).reshape((BS, dt))
        s = ct.sum(kt * qt, 1).reshape((1, BS)) * scale
        rows = ct.arange(BS).reshape((1, BS)) + j * BS
        s = ct.where(rows < S, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, 1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m - m_new)
        total = total * alpha + ct.sum(p, 1, keepdims=True)
        acc = acc * alpha + ct.sum(p.reshape((BS, 1)) * vt, 0, keepdims=True)
        m = m_new
    out.store((acc / total).reshape((1, 1, dt)))


@ct.kernel
def shift_blocks(z: Mut[Tensor[f32, (20, 30)]], x: Tensor[f32, (-1, -1)]) -> None:
    # Persistent: each slab of x minus the slab's own maximum (-inf past the slab never wins).
    for zt in z.tiles():
        t = ct.load_tile_like(x, zt, padding=-math.inf)
        zt.store(t - ct.max(ct.max(t, 1), 0))


@ct.kernel
def add_blocks(z: Mut[Tensor[f32, (20, 30)]], x: Tensor[f32, (-1, -1)]) -> None:
    # Persistent: read the slab and x over it, write their sum; -1 past the slab.
    for zt in z.tiles():
        zt.store(zt.load(padding=-1.0) + ct.load_tile_like(x, zt, padding=-1.0))


@ct.kernel
def layer_norm_backward(dx: Mut[Tensor[f32, (1, "N")]], dw: Acc[Tensor[f32, (1, "N")], "add"],
                        db: Acc[Tensor[f32, (1, "N")], "add"], dy: Tensor[f32, (-1, "N")],
                        x: Tensor[f32, (-1, "N")], w: Tensor[f32, ("N",)],
                        mean: Tensor[f32, (-1, 1)], rstd: Tensor[f32, (-1, 1)],
                        N: Const[int]) -> None:
    # dW and dB summed over rows into accumulators; the (1, 128) tiles' columns past N = 100
    # fall outside the accumulators and are dropped.
    row = dx.tile_index()[0]
    g = ct.load_tile_like(dy, dx)
    mu = mean.load_tile((1, 1), (row, 0))
    r = rstd.load_tile((1, 1), (row, 0))
    cols = ct.arange(dx.tile_shape[1]).reshape((1, dx.tile_shape[1]))
    xhat = ct.where(cols < N, (ct.load_tile_like(x, dx) - mu) * r, 0.0)
    wg = w.load_tile((dx.tile_shape[1],), (0,)) * g
    c1 = ct.sum(xhat * wg, 1, keepdims=True) / N
    c2 = ct.sum(wg, 1, keepdims=True) / N
    dx.store((wg - (xhat * c1 + c2)) * r)
    dw.add(g * xhat, (0, 0))
    db.add(g, (0, 0))


@ct.kernel
def scale1(z: Mut[Tensor[f32, (100,)]], x: Tensor[f32, (-1,)], c: f32) -> None:
    t = ct.load_tile_like(x, z, padding=math.nan)
    z.store(t * c)


@ct.kernel
def slab_sum2(z: Mut[Tensor[f32, (3, 10)]], x: Tensor[f32, (-1, -1)]) -> None:
    # Every element of the slab becomes the slab's sum: a neighbour's element would show.
    t = ct.load_tile_like(x, z)
    z.store(t * 0.0 + ct.sum(ct.sum(t, 1), 0))


@ct.kernel
def slab_sum4(z: Mut[Tensor[f32, (1, 3, 5, 6)]], x: Tensor[f32, (-1, -1, -1, -1)]) -> None:
    t = ct.load_tile_like(x, z, padding=0.0)
    s = ct.sum(ct.sum(ct.sum(ct.sum(t, 3), 2), 1), 0)
    z.store(t * 0.0 + s)


@ct.kernel
def slab_sum5(z: Mut[Tensor[f32, (1, 2, 3, 5, 6)]],
              x: Tensor[f32, (-1, -1, -1, -1, -1)]) -> None:
    t = ct.load_tile_like(x, z, padding=0.0)
    s = ct.sum(ct.sum(ct.sum(ct.sum(ct.sum(t, 4), 3), 2), 1), 0)
    z.store(t * 0.0 + s)


@ct.kernel
def padded_row(z: Mut[Tensor[f32, (1, 100)]], x: Tensor[f32, (-1, -1)]) -> None:
    # The row's 100 elements and 28 of padding (7.0) past them, whatever x holds there.
    t = ct.load_tile_like(x, z, padding=7.0)
    z.store(ct.sum(t, 1, keepdims=True) + t * 0.0)
