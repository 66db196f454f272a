"""MXFP4 quantization (OCP MX): each block of 32 values of a row becomes 32 f4e2m1 values and
one f8e8m0 scale, 2**(floor(log2(amax)) - 2) (2 is the top exponent of e2m1, whose largest
value is 6); dequantizing multiplies back. Checked against a NumPy reference, exactly.

The MX formats need sm_100 or newer (tileiras refuses them for sm_90) and f4e2m1 tensors run
on the interpreter only (CT507), so on other GPUs this example says so and stops."""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f4e2m1, f8e8m0, f32

BLOCK = 32  # the MX block size


@ct.kernel
def quantize(q: Mut[Tensor[f4e2m1, ("BR", 32)]], s: Mut[Tensor[f8e8m0, ("BR", 1)]],
             x: Tensor[f32, (-1, -1)], BR: Const[int]) -> None:
    t = ct.load_tile_like(x, q)
    amax = ct.max(ct.abs(t), 1, keepdims=True)
    scale = (amax * 0.25).astype(f8e8m0)  # rounds toward zero: 2**floor(log2(amax)) / 4
    q.store((t / scale.astype(f32)).astype(f4e2m1))  # nearest even, saturating at +-6
    s.store(scale)


@ct.kernel
def dequantize(y: Mut[Tensor[f32, ("BR", 32)]], q: Tensor[f4e2m1, (-1, -1)],
               s: Tensor[f8e8m0, (-1, -1)], BR: Const[int]) -> None:
    scale = s.load_tile((BR, 1), (ct.block_id(0), ct.block_id(1))).astype(f32)
    y.store(ct.load_tile_like(q, y).astype(f32) * scale)


E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The f4e2m1 values and the per-block scales, in float64."""
    cols = x.shape[1]
    nb = -(-cols // BLOCK)  # a ragged last block reads zeros past the row (they are no max)
    blocks = np.pad(x.astype(np.float64), ((0, 0), (0, nb * BLOCK - cols))).reshape(
        x.shape[0], nb, BLOCK)
    amax = np.abs(blocks).max(axis=2, keepdims=True)
    _, e = np.frexp(amax)  # amax = m * 2**e, 0.5 <= m < 1, so floor(log2(amax)) = e - 1
    scale = np.where(amax > 0, np.ldexp(1.0, e - 1 - 2), 2.0**-127)
    v = np.minimum(np.abs(blocks / scale), 6.0)
    hi = np.searchsorted(E2M1, v).clip(0, 7)
    lo = (hi - 1).clip(0, 7)
    d_lo, d_hi = v - E2M1[lo], E2M1[hi] - v
    pick = np.where((d_lo < d_hi) | ((d_lo == d_hi) & (lo % 2 == 0)), lo, hi)
    q = np.copysign(E2M1[pick], blocks)
    return q.reshape(x.shape[0], -1)[:, :cols], scale.reshape(x.shape[0], -1)


def main(rows: int = 64, cols: int = 256, br: int = 16) -> None:
    rng = np.random.default_rng(0)
    x0 = (rng.standard_normal((rows, cols)) * np.exp2(rng.integers(-8, 8, (rows, 1)))
          ).astype(np.float32)
    x0[min(3, rows - 1), :BLOCK] = 0.0  # an all-zero block: the smallest scale, zeros
    q = ct.zeros((rows, cols), f4e2m1).partition((br, BLOCK))
    s = ct.zeros((rows, -(-cols // BLOCK)), f8e8m0).partition((br, 1))
    try:
        q, s, _ = quantize(q, s, ct.from_numpy(x0)).sync()
    except ct.CompileError as err:
        if err.diagnostics[0].code != "CT507":
            raise
        print(f"mxfp4 on {ct.backend_name()}: not on this GPU: {err.diagnostics[0].message}")
        return
    q, s = q.unpartition(), s.unpartition()
    want_q, want_s = reference(x0)
    np.testing.assert_array_equal(q.numpy(), want_q)
    np.testing.assert_array_equal(s.numpy(), want_s)
    y = ct.zeros((rows, cols), f32).partition((br, BLOCK))
    y, q, s = dequantize(y, q, s).sync()
    got = y.unpartition().numpy()
    want = want_q * np.repeat(want_s, BLOCK, axis=1)[:, :cols]
    np.testing.assert_array_equal(got, want)
    worst = np.abs(got - x0).max() / max(float(np.abs(x0).max()), 1e-30)
    print(f"mxfp4: {rows}x{cols} in blocks of {BLOCK} on {ct.backend_name()}, "
          f"max error {worst:.3f} of the largest value, ok")


if __name__ == "__main__":
    main()
