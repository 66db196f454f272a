"""FP8 GEMM: e4m3 x e4m3 -> bf16 with f32 accumulation, per-tensor or 1x128 block scales.

A is (M, K) and B is given as B^T, (N, K), both K-major: the layout cuBLAS (`torch._scaled_mm`)
and the Hopper tensor cores want for 8-bit operands. Scales multiply (dequantize):
- per tensor: C = (A @ B) * (scale_a * scale_b), one host scalar;
- 1x128 blocks: every row of A and every column of B has one scale per 128 values of K
  (DeepSeek-V3's activation recipe on both sides). They arrive transposed, (K / 128, M) and
  (K / 128, N), which is `torch._scaled_mm`'s outer-dim-major layout. Each 128-deep slice of K
  is one matrix product in f32, scaled by its row and column scales as it is added in.

`FAST_ACC=True` (per tensor) lets the tensor cores carry the running sum from one K step to the
next (`ct.mma(..., fast_acc=True)`, as `torch._scaled_mm(use_fast_accum=True)`): on sm_90 each
step then needs no wait for its products and no f32 additions, at the cost of the tensor cores'
narrower internal accumulation. Without it every K step's products are summed apart and added
in, which keeps full f32 accumulation.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, bf16, f8e4m3, f32

QBLOCK = 128  # K values per block scale


@ct.kernel
def fp8_gemm(c: Mut[Tensor[bf16, ("BM", "BN")]], a: Tensor[f8e4m3, (-1, -1)],
             bt: Tensor[f8e4m3, (-1, -1)], scale: f32, BM: Const[int], BN: Const[int],
             BK: Const[int], FAST_ACC: Const[bool]) -> None:
    i, j = c.tile_index()
    pa = a.partition((BM, BK))
    pb = bt.partition((BN, BK))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        acc = ct.mma(pa.load((i, k)), ct.permute(pb.load((j, k)), (1, 0)), acc,
                     fast_acc=FAST_ACC)
    c.store((acc * scale).astype(bf16))


@ct.kernel
def fp8_gemm_blockwise(c: Mut[Tensor[bf16, ("BM", "BN")]], a: Tensor[f8e4m3, (-1, -1)],
                       bt: Tensor[f8e4m3, (-1, -1)], sa: Tensor[f32, (-1, -1)],
                       sb: Tensor[f32, (-1, -1)], BM: Const[int], BN: Const[int]) -> None:
    i, j = c.tile_index()
    pa = a.partition((BM, QBLOCK))
    pb = bt.partition((BN, QBLOCK))
    psa = sa.partition((1, BM))
    psb = sb.partition((1, BN))
    acc = ct.zeros((BM, BN), f32)
    for k in range(ct.num_tiles(pa, 1)):
        part = ct.mma(pa.load((i, k)), ct.permute(pb.load((j, k)), (1, 0)),
                      ct.zeros((BM, BN), f32))
        acc = acc + part * psa.load((k, i)).reshape((BM, 1)) * psb.load((k, j))
    c.store(acc.astype(bf16))


def quantize_blockwise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, K) float32 -> e4m3 values (as float32) and scales (ceil(K / 128), R): each 128-wide
    slice of a row scaled so that its largest magnitude maps to 448 (e4m3's largest finite
    value)."""
    r, k = x.shape
    kb = -(-k // QBLOCK)  # a ragged last block is padded with zeros (the kernel reads those)
    blocks = np.pad(x, ((0, 0), (0, kb * QBLOCK - k))).reshape(r, kb, QBLOCK)
    scale = np.maximum(np.abs(blocks).max(axis=2), 1e-12) / 448.0
    q = (blocks / scale[:, :, None]).reshape(r, kb * QBLOCK)[:, :k]
    return q, np.ascontiguousarray(scale.T)


def reference_blockwise(a8: np.ndarray, sa: np.ndarray, b8t: np.ndarray, sb: np.ndarray
                        ) -> np.ndarray:
    """Dequantize each operand with its block scales, then multiply (float64)."""
    k = a8.shape[1]
    ad = a8.astype(np.float64) * np.repeat(sa.T, QBLOCK, axis=1)[:, :k]
    bd = b8t.astype(np.float64) * np.repeat(sb.T, QBLOCK, axis=1)[:, :k]
    out: np.ndarray = ad @ bd.T
    return out


def _e4m3(values: np.ndarray) -> ct.HostTensor:
    return ct.from_numpy(values.astype(np.float32), f8e4m3)


def main(m: int = 128, n: int = 128, k: int = 256, tiles: tuple[int, int, int] = (64, 64, 64),
         ) -> None:
    bm, bn, bk = tiles
    rng = np.random.default_rng(0)
    a = _e4m3(rng.standard_normal((m, k)))
    bt = _e4m3(rng.standard_normal((n, k)))
    a8, b8t = a.numpy().astype(np.float64), bt.numpy().astype(np.float64)  # rounded to e4m3
    want = (a8 @ b8t.T) * 0.125
    for fast in (False, True):
        c = ct.zeros((m, n), bf16).partition((bm, bn))
        c, a, bt, _ = fp8_gemm(c, a, bt, 0.5 * 0.25, BK=bk, FAST_ACC=fast).sync()
        np.testing.assert_allclose(c.unpartition().numpy().astype(np.float64), want, rtol=1e-2,
                                   atol=1e-1)

    xa, xb = rng.standard_normal((m, k)) * 3.0, rng.standard_normal((n, k)) * 0.01
    qa, sa = quantize_blockwise(xa)
    qb, sb = quantize_blockwise(xb)
    a, bt = _e4m3(qa), _e4m3(qb)
    sa_t, sb_t = ct.from_numpy(sa.astype(np.float32)), ct.from_numpy(sb.astype(np.float32))
    c = ct.zeros((m, n), bf16).partition((bm, bn))
    c, a, bt, sa_t, sb_t = fp8_gemm_blockwise(c, a, bt, sa_t, sb_t).sync()
    want = reference_blockwise(a.numpy(), sa, bt.numpy(), sb)
    got = c.unpartition().numpy().astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2 * float(np.abs(want).max()))
    # the block scales recover the unquantized product to e4m3's precision: each operand is
    # within 2**-4 of its value (3 mantissa bits), so their product within about twice that
    rel = np.linalg.norm(got - xa @ xb.T) / np.linalg.norm(xa @ xb.T)
    assert rel < 2 * 2**-4, rel
    print(f"fp8_gemm: {m}x{n}x{k} (per-tensor and 1x128 block scales) on "
          f"{ct.backend_name()}, ok (block-scaled vs unquantized: {rel:.3f})")


if __name__ == "__main__":
    main()
