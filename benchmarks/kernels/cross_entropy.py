"""Row 13's one-pass form: the whole row of logits in one (1, BN) tile, read once, with the
loss and the gradient (written over the logits in place) from that one read. For vocabularies
up to BN (the suite times it at BN = the next power of two of the width);
examples/cross_entropy.py walks rows of any width in two passes, and `cross_entropy_walk` is
that walk with the target's logit read as one element."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32

LOG2E = 1.4426950408889634
FLOOR = -1e30  # padding past the row: exp of it is 0


@ct.kernel
def cross_entropy_once(logits: Mut[Tensor[f32, (1, -1)]], loss: Mut[Tensor[f32, (1, 1)]],
                       targets: Tensor[i32, (-1,)], scale: f32, BN: Const[int]) -> None:
    row = logits.tile_index()[0]
    target = targets.load_tile((1,), (row,)).reshape(())
    hit = logits.load((1, 1), (0, target))  # the target's logit: one element, not a mask
    x = logits.load((1, BN), (0, 0), padding=FLOOR)
    top = ct.max(x, 1, keepdims=True) * LOG2E
    e = ct.exp2(x * LOG2E - top)
    total = ct.sum(e, 1, keepdims=True)
    loss.store(((top + ct.log2(total)) / LOG2E - hit) * scale)
    hot = ct.arange(BN).reshape((1, BN)) == target
    logits.store((e * (1.0 / total) - ct.where(hot, 1.0, 0.0)) * scale, (0, 0))


@ct.kernel
def cross_entropy_walk(logits: Mut[Tensor[f32, (1, -1)]], loss: Mut[Tensor[f32, (1, 1)]],
                       targets: Tensor[i32, (-1,)], scale: f32, BN: Const[int]) -> None:
    """examples/cross_entropy.py's two walks over a row of any width, with the target's logit
    read as one element (as above) instead of picked out of every tile of the first walk."""
    row = logits.tile_index()[0]
    tiles = ct.cdiv(logits.shape[1], BN)
    target = targets.load_tile((1,), (row,)).reshape(())
    hit = logits.load((1, 1), (0, target))
    top = ct.full((1, BN), FLOOR, f32)  # per lane: the largest x * log2(e) so far
    acc = ct.zeros((1, BN), f32)  # per lane: sum of exp2(x * log2(e) - top)
    for j in range(tiles):
        t = logits.load((1, BN), (0, j), padding=FLOOR) * LOG2E
        new = ct.maximum(top, t)
        acc = acc * ct.exp2(top - new) + ct.exp2(t - new)
        top = new
    m = ct.max(top, 1, keepdims=True)
    lse = (m + ct.log2(ct.sum(acc * ct.exp2(top - m), 1, keepdims=True))) / LOG2E
    loss.store((lse - hit) * scale)
    for j in range(tiles):
        x = logits.load((1, BN), (0, j), padding=FLOOR)
        hot = ct.arange(BN).reshape((1, BN)) + j * BN == target
        logits.store((ct.exp(x - lse) - ct.where(hot, 1.0, 0.0)) * scale, (0, j))
