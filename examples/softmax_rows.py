"""Softmax over vocabulary-sized rows: one block per row, whatever the row's width.

The output is partitioned into slabs of one full row (`partition((1, n))`: any width, not only
a power of two). The kernel declares the slab's width dynamic (`(1, -1)`), reads it as
`out.shape[1]`, and walks the row in BN-wide tiles: `out.store(t, (0, j))` writes tile j of this
block's row. The last tile overhangs the row; its padding is masked, so a block can only ever
write its own row.

Two passes over the row: the first keeps a running maximum and a running sum of exponentials
per lane (online softmax), the second writes exp(x - max) / sum.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32

LOG2E = 1.4426950408889634
FLOOR = -1e30  # the padding past the row: finite, so exp2(FLOOR - FLOOR) is no NaN


@ct.kernel
def softmax_rows(out: Mut[Tensor[f32, (1, -1)]], x: Tensor[f32, (-1, -1)],
                 BN: Const[int]) -> None:
    row = out.tile_index()[0]
    tiles = ct.cdiv(out.shape[1], BN)
    top = ct.full((1, BN), FLOOR, f32)  # per lane: the largest x * log2(e) so far
    acc = ct.zeros((1, BN), f32)  # per lane: sum of exp2(x * log2(e) - top)
    for j in range(tiles):
        t = x.load_tile((1, BN), (row, j), padding=FLOOR) * LOG2E
        new = ct.maximum(top, t)
        acc = acc * ct.exp2(top - new) + ct.exp2(t - new)
        top = new
    m = ct.max(top, 1, keepdims=True)
    inv = 1.0 / ct.sum(acc * ct.exp2(top - m), 1, keepdims=True)
    for j in range(tiles):
        t = x.load_tile((1, BN), (row, j), padding=FLOOR) * LOG2E
        out.store(ct.exp2(t - m) * inv, (0, j))


def reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def run(rows: int, width: int, bn: int) -> None:
    xa = (np.random.default_rng(width).standard_normal((rows, width)) * 3).astype(np.float32)
    out = ct.zeros((rows, width), f32).partition((1, width))  # one slab (and block) per row
    out, _ = softmax_rows(out, ct.from_numpy(xa), BN=bn).sync()
    got = out.unpartition().numpy()
    np.testing.assert_allclose(got, reference(xa), rtol=1e-5, atol=1e-8)
    print(f"softmax_rows: {rows}x{width} in tiles of {bn} on {ct.backend_name()}, ok")


def main(cases: tuple[tuple[int, int, int], ...] = ((8, 32000, 1024), (16, 1000, 256)),
         ) -> None:
    """Each case is (rows, width, tile width). The defaults: a vocabulary-sized row (31.25
    tiles), and a row that no power of two fits."""
    for rows, width, bn in cases:
        run(rows, width, bn)


if __name__ == "__main__":
    main()
