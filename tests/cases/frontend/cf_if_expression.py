import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def good(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], s: f32, n: i32,
         FAST: Const[bool], K: Const[int]) -> None:
    t = ct.load_tile_like(x, z)
    a = t if FAST else t * 2.0
    b = t if s > 0.0 else -t
    c = 1.0 if n > 3 else s
    d = (t if K > 2 else t + 1.0) if FAST else t
    z.store(a + b + c + d + (3 if K == 1 else 4))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], h: Tensor[f16, (-1,)],
        s: f32) -> None:
    t = ct.load_tile_like(x, z)
    a = t if t > 0.0 else -t  # E: CT211 "scalar bool"
    b = t if s else -t  # E: CT211 "scalar bool"
    c = t if s > 0.0 else ct.load_tile_like(h, z)  # E: CT202
    z.store(t)
