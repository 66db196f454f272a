"""Triton peers, written for this suite: vector add, softmax, RMSNorm, LayerNorm, GEMM, and for
vocabulary-sized rows an online softmax and a fused in-place cross-entropy.

Plain designs: one program per BLOCK elements (add), one program per row with the whole row in
registers (softmax and the norms; every N here fits), a grouped-order tiled GEMM with f32
accumulation, and for rows too wide for registers (32k-152k) one program per row walking it in
BLOCK-wide chunks twice: a running max and sum first, then the output (the Liger-kernel design
for cross-entropy, written here from that description). Imported only when Triton is.
"""

from __future__ import annotations

from typing import Any

import triton
import triton.language as tl


@triton.jit
def _add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x + y, mask=mask)


def add(x: Any, y: Any, z: Any, block: int = 4096, warps: int = 8) -> None:
    n = x.numel()
    _add[(triton.cdiv(n, block),)](x, y, z, n, BLOCK=block, num_warps=warps)


@triton.jit
def _softmax(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _row_warps(n: int) -> int:
    return 4 if n <= 2048 else 8 if n <= 8192 else 16


def softmax(x: Any, y: Any) -> None:
    m, n = x.shape
    _softmax[(m,)](x, y, x.stride(0), n, BLOCK=triton.next_power_of_2(n),
                   num_warps=_row_warps(n))


@triton.jit
def _softmax_online(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    row = tl.program_id(0).to(tl.int64)
    x_row, y_row = x_ptr + row * stride, y_ptr + row * stride
    top = -float("inf")
    total = 0.0
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        new = tl.maximum(top, tl.max(x, axis=0))
        total = total * tl.exp(top - new) + tl.sum(tl.exp(x - new), axis=0)
        top = new
    inv = 1.0 / total
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_row + cols, (tl.exp(x - top) * inv).to(y_ptr.dtype.element_ty), mask=mask)


def softmax_online(x: Any, y: Any, config: tuple[int, int]) -> None:
    """Softmax of each row of any width: one program per row, two passes in BLOCK chunks."""
    m, n = x.shape
    block, warps = config
    _softmax_online[(m,)](x, y, x.stride(0), n, BLOCK=block, num_warps=warps)


@triton.jit
def _cross_entropy(x_ptr, t_ptr, loss_ptr, stride, n, scale,  # type: ignore[no-untyped-def]
                   BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    target = tl.load(t_ptr + row)
    hit = tl.load(x_row + target).to(tl.float32)  # read before pass 2 overwrites it
    top = -float("inf")
    total = 0.0
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        new = tl.maximum(top, tl.max(x, axis=0))
        total = total * tl.exp(top - new) + tl.sum(tl.exp(x - new), axis=0)
        top = new
    lse = top + tl.log(total)
    tl.store(loss_ptr + row, (lse - hit) * scale)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        grad = tl.exp(x - lse) - tl.where(cols == target, 1.0, 0.0)
        tl.store(x_row + cols, (grad * scale).to(x_ptr.dtype.element_ty), mask=mask)


def cross_entropy(x: Any, targets: Any, loss: Any, config: tuple[int, int]) -> None:
    """Per-row loss of the mean cross-entropy into `loss`, its gradient written over `x`."""
    m, n = x.shape
    block, warps = config
    _cross_entropy[(m,)](x, targets, loss, x.stride(0), n, 1.0 / m, BLOCK=block,
                         num_warps=warps)


@triton.jit
def _rmsnorm(x_ptr, w_ptr, y_ptr, stride, n, eps,  # type: ignore[no-untyped-def]
             BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / n + eps)
    tl.store(y_ptr + row * stride + cols, (x * r * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x: Any, w: Any, y: Any, eps: float) -> None:
    m, n = x.shape
    _rmsnorm[(m,)](x, w, y, x.stride(0), n, eps, BLOCK=triton.next_power_of_2(n),
                   num_warps=_row_warps(n))


@triton.jit
def _layernorm(x_ptr, w_ptr, b_ptr, y_ptr, stride, n, eps,  # type: ignore[no-untyped-def]
               BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    c = tl.where(mask, x - mean, 0.0)
    r = tl.rsqrt(tl.sum(c * c, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (c * r * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def layernorm(x: Any, w: Any, b: Any, y: Any, eps: float) -> None:
    m, n = x.shape
    _layernorm[(m,)](x, w, b, y, x.stride(0), n, eps, BLOCK=triton.next_power_of_2(n),
                     num_warps=_row_warps(n))


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,  # type: ignore[no-untyped-def]
          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows_in_group = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows_in_group
    pn = (pid % per_group) // rows_in_group
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    mask = (cm[:, None] < M) & (cn[None, :] < N)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=mask)


# (BM, BN, BK, stages, warps): the usual Hopper bf16 choices, each timed as a variant
GEMM_CONFIGS = ((128, 256, 64, 3, 8), (128, 128, 64, 4, 4))


def gemm(a: Any, b: Any, c: Any, config: tuple[int, int, int, int, int]) -> None:
    m, k = a.shape
    _, n = b.shape
    bm, bn, bk, stages, warps = config
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _gemm[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, GROUP=8, num_stages=stages,
                num_warps=warps)
