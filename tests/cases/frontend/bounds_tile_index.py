import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)], y: Tensor[f32, (-1,)],
       w: Tensor[f32, (128, 256)]) -> None:
    p = x.partition((64,))
    acc = p.load((3,)) + p.load(0)
    for k in range(4):
        acc = acc + p.load((k,))
    for k in range(1, 5):
        acc = acc + p.load((k - 1,)) + x.load_tile((64,), (k - 1,))
    for k in range(0, 8, 2):
        acc = acc + p.load((k // 2,)) + p.load((k - k,))
    for k in range(2):
        acc = acc + p.load((2 * k + 1,))
    for k in range(5):
        if k < 4:
            acc = acc + p.load((k,))  # the load is skipped at k = 4
    for k in range(8):
        if k >= 4:
            break
        acc = acc + p.load((k,))  # a loop with a break: no range
    q = y.partition((64,))
    acc = acc + q.load((1000,))  # a dynamic extent: unknown at edit time
    r = w.partition((64, 64))
    acc = acc + ct.sum(r.load((1, 3)), 0)
    for k in range(ct.num_tiles(p, 0)):
        acc = acc + p.load((k,))
    for k in range(0):
        acc = acc + p.load((k + 100,))  # the loop never runs
    z.store(acc)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)], w: Tensor[f32, (128, 256)]) -> None:
    p = x.partition((64,))
    a = p.load((4,))  # E: CT404 "tile index (4,) is outside the partition grid (4,)"
    b = p.load(-1)  # E: CT404 "negative"
    for k in range(5):
        a = a + p.load((k,))  # E: CT404 "(4,)"
    for k in range(4):
        a = a + p.load((k + 1,))  # E: CT404
        a = a + p.load((k - 1,))  # E: CT404 "negative"
        a = a + x.load_tile((64,), (2 * k,))  # E: CT404
    for k in range(0, 10, 3):
        a = a + p.load((k,))  # E: CT404 "(9,)"
    for k in range(3):
        for _j in range(2):
            a = a + p.load((k + 2,))  # E: CT404
    r = w.partition((64, 64))
    c = ct.sum(r.load((1, 4)), 0)  # E: CT404 "(1, 4)"
    d = ct.sum(r.load((2, 0)), 0)  # E: CT404 "grid (2, 4)"
    if ct.block_id(0) == 0:
        a = a + p.load((7,))  # E: CT404
    z.store(a + b + c + d)


@ct.kernel
def const_shape(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, ("N",)], N: Const[int]) -> None:
    p = x.partition((64,))
    z.store(p.load((4,)))  # unknown until N is: the specialization reports it


@ct.kernel(unsafe=True)  # E: CT115
def unsafe_stores(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (256,)]) -> None:
    t = ct.zeros((64,), f32)
    x.store(t, (3,))
    x.store(t, (4,))  # E: CT404
    z.store(ct.zeros((16,), f32), (-2,))  # E: CT404 "negative"
    z.store(ct.zeros((16,), f32), (100,))  # past the slab: masked, as a dynamic index would be
