import math
from math import inf

import cutile as ct
from cutile import Const, Mut, Tensor, f8e4m3, f16, f32, i32, u8


@ct.kernel
def good(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], y: Tensor[i32, (-1,)],
         P: Const[float]) -> None:
    a = ct.load_tile_like(x, z, padding=-math.inf)
    b = x.load_tile((64,), (0,), padding=math.nan)
    c = x.partition((64,)).load(0, padding=P)
    d = z.load(padding=inf)
    e = y.load_tile((64,), (0,), padding=-(2**31)).astype(f32)
    f = x.load_tile((64,), (0,), padding=True)
    z.store(a + b + c + d + e + f + math.pi - math.e)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], y: Tensor[i32, (-1,)], h: Tensor[f16, (-1,)],
        q: Tensor[f8e4m3, (-1,)], u: Tensor[u8, (-1,)]) -> None:
    a = y.load_tile((64,), (0,), padding=math.inf)  # E: CT214 "not representable in i32"
    b = y.load_tile((64,), (0,), padding=2.5)  # E: CT214 "pad with integers"
    c = h.load_tile((64,), (0,), padding=1e6)  # E: CT214 "largest finite value is 65504"
    d = q.load_tile((64,), (0,), padding=-math.inf)  # E: CT214 "has no infinity"
    e = u.load_tile((64,), (0,), padding=-1)  # E: CT214 "range is 0..255"
    f = h.load_tile((64,), (0,), padding=(1, 2))  # E: CT209 "compile-time number"
    g = ct.load_tile_like(h, z, padding=h.load_tile((64,), (0,)))  # E: CT209 "got a f16 tile"
    z.store(ct.zeros((64,), f32))
