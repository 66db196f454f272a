"""Kernels that return early (`if ...: return` guards, returns inside loops and nested ifs),
shared by the interpreter tests and their GPU twins (tests/runtime/test_early_return.py)."""

import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f32, i32

IGNORE = -100  # torch's ignore_index


@ct.kernel
def cross_entropy(loss: Mut[Tensor[f32, (1,)]], logits: Tensor[f32, (-1, "V")],
                  labels: Tensor[i32, (-1,)], V: Const[int]) -> None:
    """Per row: logsumexp(x) - x[label]; an ignored row stores 0 and stops there."""
    row = ct.block_id(0)
    label = ct.gather(labels, row)
    if label == IGNORE:
        loss.store(ct.zeros((1,), f32))
        return
    x = logits.load_tile((1, V), (row, 0)).reshape((V,))
    m = ct.max(x, 0)
    lse = m + ct.log(ct.sum(ct.exp(x - m), 0))
    picked = ct.sum(ct.where(ct.arange(V, i32) == label, x, 0.0), 0)
    loss.store(ct.full((1,), 0.0, f32) + (lse - picked))


@ct.kernel
def jsd(out: Mut[Tensor[f32, (1,)]], p: Tensor[f32, (-1, "V")], q: Tensor[f32, (-1, "V")],
        labels: Tensor[i32, (-1,)], V: Const[int]) -> None:
    """Jensen-Shannon divergence of two rows of probabilities; an ignored row keeps its old
    value (nothing is stored for it)."""
    row = ct.block_id(0)
    if ct.gather(labels, row) == IGNORE:
        return
    a = p.load_tile((1, V), (row, 0)).reshape((V,))
    b = q.load_tile((1, V), (row, 0)).reshape((V,))
    m = 0.5 * (a + b)
    kl_a = ct.sum(ct.where(a > 0.0, a * ct.log(a / m), 0.0), 0)
    kl_b = ct.sum(ct.where(b > 0.0, b * ct.log(b / m), 0.0), 0)
    out.store(ct.full((1,), 0.5, f32) * (kl_a + kl_b))


@ct.kernel
def scale_first(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], n: i32,
                B: Const[int]) -> None:
    """A grid larger than the work: blocks past `n` elements stop at once."""
    if ct.block_id(0) * B >= n:
        return
    z.store(ct.load_tile_like(x, z) * 2.0)


@ct.kernel
def first_above(found: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (-1, "B")], limit: f32,
                B: Const[int]) -> None:
    """The first row of x (searched tile by tile) holding a value above `limit`, or -1."""
    rows = ct.num_tiles(x.partition((1, B)), 0)
    for r in range(rows):
        t = x.load_tile((1, B), (r, 0))
        if ct.max(ct.max(t, 1), 0) > limit:
            found.store(ct.full((1,), 0, i32) + r)
            return
    found.store(ct.full((1,), -1, i32))


@ct.kernel
def running_sum(z: Mut[Tensor[f32, (1,)]], x: Tensor[f32, (-1, "B")], budget: f32,
                B: Const[int]) -> None:
    """Adds rows while the sum stays within `budget`; a row that would exceed it stores the
    sum so far and stops. Otherwise the total (times -1) is stored after the loop."""
    total = ct.zeros((), f32)
    for r in range(ct.num_tiles(x.partition((1, B)), 0)):
        s = ct.sum(ct.sum(x.load_tile((1, B), (r, 0)), 1), 0)
        if total + s > budget:
            z.store(ct.full((1,), 0.0, f32) + total)
            return
        total = total + s
    z.store(ct.full((1,), 0.0, f32) - total)


@ct.kernel
def collatz_steps(z: Mut[Tensor[i32, (1,)]], start: Tensor[i32, (-1,)], cap: i32) -> None:
    """Collatz steps of start[block] until 1; past `cap` steps it gives up storing nothing.
    The while loop carries n and steps; the return leaves two loops (while, then for)."""
    n = ct.gather(start, ct.block_id(0))
    steps = ct.zeros((), i32)
    for _ in range(1):
        while n != 1:
            if steps >= cap:
                return
            n = ct.where(n % 2 == 0, n // 2, 3 * n + 1)
            steps = steps + 1
    z.store(ct.full((1,), 0, i32) + steps)


@ct.kernel
def classify(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    """Nested guards and a return in else: each block picks one of four endings by its mean."""
    t = ct.load_tile_like(x, z)
    mean = ct.sum(t, 0) / B
    if mean > 0.0:
        if mean > 1.0:
            z.store(t * 0.0 + 2.0)
            return
        t = t + 10.0  # rebinds the tile that the code after the if uses
    else:
        if mean < -1.0:
            return  # keeps the old contents
        else:
            z.store(t * 0.0 - 2.0)
            return
    z.store(t)


@ct.kernel
def both_branches(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    if ct.sum(t, 0) > 0.0:
        z.store(t)
        return
    else:
        z.store(-t)
        return


@ct.kernel
def tally_until(acc: Acc[Tensor[f32, (-1,)], "add"], x: Tensor[i32, (-1,)],
                B: Const[int]) -> None:
    """Atomic adds before and after a data-dependent return, and a printf on the way out."""
    pid = ct.block_id(0)
    acc.add(ct.full((B,), 1.0, f32), (0,))
    if ct.gather(x, pid) < 0:
        ct.printf("block %d stops\n", pid)
        return
    acc.add(ct.full((B,), 1.0, f32), (1,))
