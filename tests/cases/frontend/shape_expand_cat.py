import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def expand_cat(z: Mut[Tensor[f32, (128, 1)]], w: Mut[Tensor[f32, (2, 64)]],
               x: Tensor[f32, (-1,)]) -> None:
    a = x.load_tile((64,), 0)
    b = x.load_tile((64,), 1)
    z.store(ct.expand_dims(ct.cat((a, b)), 1))
    z.store(ct.expand_dims(ct.cat((a, b), 0), -1))
    w.store(ct.cat((ct.expand_dims(a, 0), ct.expand_dims(b, axis=0)), axis=0))


@ct.kernel
def bad(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    a = x.load_tile((64,), 0)
    c = ct.cat((a, x.load_tile((32,), 0)))  # E: CT208 "96"
    d = ct.cat((a, a.astype(f16)))  # E: CT202
    e = ct.cat((ct.expand_dims(a, 0), ct.expand_dims(a, 1)), 0)  # E: CT201
    f = ct.cat((a, a), 1)  # E: CT206
    g = ct.expand_dims(a, 2)  # E: CT206
    h = ct.cat(a)  # E: CT211
    i = ct.cat((a,))  # E: CT211 "a tuple of 1"
    q = x.load_tile((32,), 0)
    j = ct.cat((q, a, q))  # E: CT211 "extents 32, 64, 32"
    k = ct.cat((a, a, a))  # E: CT208 "192"
    z.store(c + d + e + f + g + h + i + j + k)


@ct.kernel
def many(z: Mut[Tensor[f32, (256,)]], x: Tensor[f32, (-1,)]) -> None:
    a = x.load_tile((32,), 0)
    b = x.load_tile((64,), 0)
    z.store(ct.cat((a, a * 2.0, b, ct.cat((b, a, a), 0))) + ct.cat((b, a, a, b, b)))
