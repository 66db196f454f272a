"""Gathers, load_at and scatter: operands, shapes, dtypes and the unsafe rule."""
import math

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32, i64, u8


@ct.kernel
def good(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)], ids: Tensor[i64, (-1,)],
         B: Const[int]) -> None:
    r = ids.load_tile((16,), (0,)).reshape((16, 1))
    c = ct.arange(32, i32).reshape((1, 32))
    a = ct.gather(x, (r, c), padding=-math.inf)
    b = x.load_at((16, 32), (ct.block_id(0) * 3 - 1, 5), padding=math.nan)
    s = ct.gather(x, (0, 1))
    z.store(a + b + s + ct.gather(x, (r, 0)))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)], h: Tensor[u8, (-1,)],
        ids: Tensor[i32, (-1,)], y: Tensor[f32, (-1,)]) -> None:
    r = ids.load_tile((16,), (0,))
    t = ct.load_tile_like(x, z)
    a = ct.gather(x, r)  # E: CT203 "one per axis of the rank-2 tensor 'x'"
    b = ct.gather(x, (r, t))  # E: CT211 "as an index"
    c = ct.gather(x, (r, ct.arange(32, i32)))  # E: CT201 "not broadcastable"
    d = ct.gather(z, (r, r))  # E: CT211 "read-only tensor"
    e = ct.gather(h, r, padding=-1)  # E: CT214 "range is 0..255"
    f = x.load_at((16, 24), (0, 0))  # E: CT208
    g = x.load_at((16,), (0, 0))  # E: CT203 "shape of load_at()"
    k = x.load_at((16, 32), (0, 1.5))  # E: CT211
    ct.scatter(y, (r,), r.astype(f32))  # E: CT112 "ct.scatter"
    ct.scatter(z, (r,), t)  # E: CT211 "cannot write the Mut tensor 'z'"
    z.store(t)


@ct.kernel(unsafe=True)  # E: CT115 "kernel 'spread' is unsafe"
def spread(y: Tensor[f32, (-1,)], w: Tensor[f16, (-1, -1)], z: Mut[Tensor[f32, (16,)]],
           ids: Tensor[i32, (-1,)]) -> None:
    r = ids.load_tile((16,), (0,))
    t = ct.load_tile_like(y, z)
    ct.scatter(y, r, t, mask=t > 0.0)
    ct.scatter(y, (r,), 0.0)
    ct.scatter(w, (r.reshape((16, 1)), ct.arange(4, i32).reshape((1, 4))), 1.0)
    ct.scatter(y, (r,), t.astype(f16))  # E: CT213 "astype(f32)"
    ct.scatter(y, (r,), t, mask=t)  # E: CT211 "bool tile"
    ct.scatter(z, (r,), t)  # E: CT211 "cannot write the Mut tensor"
    ct.scatter(y, (r, r), t)  # E: CT203
    z.store(t)
