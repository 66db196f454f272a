"""Reductions drop the reduced axis unless keepdims=True (NumPy semantics); sums and products
of narrow ints and bools are 32-bit."""
import cutile as ct
from cutile import Mut, Tensor, f32, i8, i32, u8, u32


@ct.kernel
def reduce(r: Mut[Tensor[f32, (16,)]], c: Mut[Tensor[f32, (64,)]], k: Mut[Tensor[f32, (16, 1)]],
           s: Mut[Tensor[f32, (1, 64)]], n: Mut[Tensor[i32, (16,)]],
           x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    r.store(ct.sum(t, 1) + ct.max(t, 1) + ct.min(t, axis=1) + ct.prod(t, -1))
    c.store(ct.sum(t, 0) + ct.max(t, axis=-2))
    k.store(ct.sum(t, 1, keepdims=True) + ct.min(t, axis=1, keepdims=True))
    s.store(ct.max(t, 0, True))
    n.store(ct.sum(t.astype(i32), 1))
    total = ct.sum(ct.sum(t, 1), 0)
    r.store(ct.full((16,), total, f32))


@ct.kernel
def counts(n: Mut[Tensor[i32, (16,)]], u: Mut[Tensor[u32, (16,)]], x: Tensor[i8, (-1, -1)],
           y: Tensor[u8, (-1, -1)]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    n.store(ct.sum(t, 1) + ct.prod(t, 1) + ct.sum(t > 0, 1) + ct.sum(t, 1, keepdims=True)[:, 0])
    u.store(ct.sum(y.load_tile((16, 64), (0, 0)), axis=1))
    n.store(ct.full((16,), ct.sum(t > 0), i32))  # a whole-tile count
