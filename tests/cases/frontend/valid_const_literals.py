"""A Const[int] behaves like a Python literal: it takes the other operand's dtype."""
import cutile as ct
from cutile import Const, Mut, Tensor, f16, i8, i32

HALF = 0.5


@ct.kernel
def consts(h: Mut[Tensor[f16, ("B",)]], b: Mut[Tensor[i8, ("B",)]], x: Tensor[f16, (-1,)],
           B: Const[int], K: Const[int]) -> None:
    t = ct.load_tile_like(x, h)
    h.store(t * K + B - HALF)
    h.store(ct.where(t > K, K, t) + ct.full((B,), K * 2, f16))
    b.store(t.astype(i8) + K)
    h.store(ct.maximum(t, -K) + ct.abs(-K))
    n = ct.arange(B, i32) < K
    h.store(ct.where(n, 1.0, 0.0).astype(f16))
    h.store(t * (B // 2) + ct.exp(K) * t)
