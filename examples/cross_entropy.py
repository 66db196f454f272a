"""Cross-entropy over vocabulary-sized rows, with the gradient written over the logits.

Training frameworks compute the loss and, in the same pass, overwrite the logits with the
gradient of the mean loss, so the (rows x vocabulary) gradient never needs a buffer of its own.
Here each block owns one row of the logits (`partition((1, vocab))`, any vocabulary size) and
one element of the per-row loss. It walks its row twice in BN-wide tiles: first an online
log-sum-exp and the target's logit, then `softmax - onehot(target)` written back in place
(`logits.store(grad, (0, j))`). The last tile overhangs the row; its padding is masked.
"""

import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32

LOG2E = 1.4426950408889634
FLOOR = -1e30  # padding past the row: exp of it is 0, and FLOOR - FLOOR is no NaN


@ct.kernel
def cross_entropy(logits: Mut[Tensor[f32, (1, -1)]], loss: Mut[Tensor[f32, (1, 1)]],
                  targets: Tensor[i32, (-1,)], scale: f32, BN: Const[int]) -> None:
    row = logits.tile_index()[0]
    tiles = ct.cdiv(logits.shape[1], BN)
    target = targets.load_tile((1,), (row,)).reshape((1, 1))
    top = ct.full((1, BN), FLOOR, f32)  # per lane: the largest x * log2(e) so far
    acc = ct.zeros((1, BN), f32)  # per lane: sum of exp2(x * log2(e) - top)
    hit = ct.zeros((1, BN), f32)  # the target's logit, in its lane
    for j in range(tiles):
        x = logits.load((1, BN), (0, j), padding=FLOOR)
        cols = ct.arange(BN).reshape((1, BN)) + j * BN
        hit = hit + ct.where(cols == target, x, 0.0)
        t = x * LOG2E
        new = ct.maximum(top, t)
        acc = acc * ct.exp2(top - new) + ct.exp2(t - new)
        top = new
    m = ct.max(top, 1, keepdims=True)
    lse = (m + ct.log2(ct.sum(acc * ct.exp2(top - m), 1, keepdims=True))) / LOG2E
    loss.store((lse - ct.sum(hit, 1, keepdims=True)) * scale)
    for j in range(tiles):
        x = logits.load((1, BN), (0, j), padding=FLOOR)
        cols = ct.arange(BN).reshape((1, BN)) + j * BN
        grad = ct.exp(x - lse) - ct.where(cols == target, 1.0, 0.0)
        logits.store(grad * scale, (0, j))


def reference(x: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row loss of the mean cross-entropy, and its gradient with respect to the logits."""
    rows = x.shape[0]
    shifted = x - x.max(axis=1, keepdims=True)
    lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = (lse[:, 0] - shifted[np.arange(rows), targets]) / rows
    grad = np.exp(shifted - lse)
    grad[np.arange(rows), targets] -= 1.0
    return loss, grad / rows


def run(rows: int, vocab: int, bn: int) -> None:
    rng = np.random.default_rng(vocab)
    xa = (rng.standard_normal((rows, vocab)) * 3).astype(np.float32)
    ta = rng.integers(0, vocab, rows).astype(np.int32)
    ta[0] = vocab - 1  # a target in the row's last, overhanging tile
    logits = ct.from_numpy(xa).partition((1, vocab))  # one row per slab, and per block
    loss = ct.zeros((rows, 1), f32).partition((1, 1))
    logits, loss, _, _ = cross_entropy(logits, loss, ct.from_numpy(ta), 1.0 / rows, BN=bn).sync()
    got_loss = loss.unpartition().numpy()[:, 0]
    want_loss, want_grad = reference(xa.astype(np.float64), ta)
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(logits.unpartition().numpy(), want_grad, rtol=1e-4, atol=1e-8)
    print(f"cross_entropy: {rows}x{vocab} in tiles of {bn} on {ct.backend_name()}, "
          f"mean loss {got_loss.sum():.4f}, gradient in place, ok")


def main(cases: tuple[tuple[int, int, int], ...] = ((8, 32000, 1024), (16, 1000, 256)),
         ) -> None:
    """Each case is (rows, vocab, tile width). The defaults: a vocabulary-sized row (31.25
    tiles), and a row that no power of two fits."""
    for rows, vocab, bn in cases:
        run(rows, vocab, bn)


if __name__ == "__main__":
    main()
