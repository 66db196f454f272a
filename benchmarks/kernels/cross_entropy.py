"""Two other forms of examples/cross_entropy.py's kernel, timed next to it in suite row 13.

The example pads its loads with a finite FLOOR, which no Tile IR view padding mode gives, so
every load of the row is followed by a per-element select on the column index (the padding is
applied by hand), and its first pass also compares every column with the target to pick out the
target's logit. Both forms here pad with -inf instead (a view padding mode: the loads fill it
themselves); the running maximum starts at the finite FLOOR, so `-inf - FLOOR` is -inf and
exp2 of it 0, never a NaN. The target's logit is picked out in the second pass, whose
`cols == target` compare the gradient needs anyway, so the first pass is as lean as
softmax_rows':

- `cross_entropy_lean`: the example's per-lane online log-sum-exp (two exp2 per element);
- `cross_entropy_chunk`: one running maximum per row, updated from each tile's maximum, as the
  Triton peer does: one exp2 per element in the first pass, plus a block-wide max per tile.

Both have the example's signature and results (tests/benchmarks/test_bench_kernels.py checks
them against NumPy on the interpreter).
"""

import math

import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32

LOG2E = 1.4426950408889634
FLOOR = -1e30  # the running maximum's start: finite, so FLOOR - FLOOR and -inf - FLOOR are no NaN


@ct.kernel
def cross_entropy_lean(logits: Mut[Tensor[f32, (1, -1)]], loss: Mut[Tensor[f32, (1, 1)]],
                       targets: Tensor[i32, (-1,)], scale: f32, BN: Const[int]) -> None:
    row = logits.tile_index()[0]
    tiles = ct.cdiv(logits.shape[1], BN)
    target = targets.load_tile((1,), (row,)).reshape((1, 1))
    top = ct.full((1, BN), FLOOR, f32)  # per lane: the largest x * log2(e) so far
    acc = ct.zeros((1, BN), f32)  # per lane: sum of exp2(x * log2(e) - top)
    for j in range(tiles):
        t = logits.load((1, BN), (0, j), padding=-math.inf) * LOG2E
        new = ct.maximum(top, t)
        acc = acc * ct.exp2(top - new) + ct.exp2(t - new)
        top = new
    m = ct.max(top, 1, keepdims=True)
    lse = (m + ct.log2(ct.sum(acc * ct.exp2(top - m), 1, keepdims=True))) / LOG2E
    hit = ct.zeros((1, BN), f32)  # the target's logit, in its lane
    for j in range(tiles):
        x = logits.load((1, BN), (0, j), padding=-math.inf)
        onehot = ct.arange(BN).reshape((1, BN)) + j * BN == target
        hit = hit + ct.where(onehot, x, 0.0)
        grad = ct.exp(x - lse) - ct.where(onehot, 1.0, 0.0)
        logits.store(grad * scale, (0, j))
    loss.store((lse - ct.sum(hit, 1, keepdims=True)) * scale)


@ct.kernel
def cross_entropy_chunk(logits: Mut[Tensor[f32, (1, -1)]], loss: Mut[Tensor[f32, (1, 1)]],
                        targets: Tensor[i32, (-1,)], scale: f32, BN: Const[int]) -> None:
    row = logits.tile_index()[0]
    tiles = ct.cdiv(logits.shape[1], BN)
    target = targets.load_tile((1,), (row,)).reshape((1, 1))
    top = ct.full((1, 1), FLOOR, f32)  # the row's largest x * log2(e) so far
    acc = ct.zeros((1, BN), f32)  # per lane: sum of exp2(x * log2(e) - top)
    for j in range(tiles):
        t = logits.load((1, BN), (0, j), padding=-math.inf) * LOG2E
        new = ct.maximum(top, ct.max(t, 1, keepdims=True))
        acc = acc * ct.exp2(top - new) + ct.exp2(t - new)
        top = new
    lse = (top + ct.log2(ct.sum(acc, 1, keepdims=True))) / LOG2E
    hit = ct.zeros((1, BN), f32)  # the target's logit, in its lane
    for j in range(tiles):
        x = logits.load((1, BN), (0, j), padding=-math.inf)
        onehot = ct.arange(BN).reshape((1, BN)) + j * BN == target
        hit = hit + ct.where(onehot, x, 0.0)
        grad = ct.exp(x - lse) - ct.where(onehot, 1.0, 0.0)
        logits.store(grad * scale, (0, j))
    loss.store((lse - ct.sum(hit, 1, keepdims=True)) * scale)
