import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.function
def weighted(ts, ws):
    acc = ct.zeros((1, 64), f32)
    for t, w in zip(ts, ws, strict=True):
        acc = acc + t * w
    return acc


@ct.kernel
def forms(z: Mut[Tensor[f32, (1, 64)]], x: Tensor[f32, (-1, -1)], y: Tensor[f32, (-1, -1)],
          flags: Tensor[i32, (-1,)], N: Const[int]) -> None:
    t = z.load()
    for k, part in enumerate(ct.split(t, 4, axis=1)):  # k is a compile-time int
        t = t + ct.broadcast_to(ct.sum(part) * k, (1, 64))
    for k, part in enumerate(ct.split(t, N, axis=1), start=2):  # N: known at specialization
        t = t + ct.broadcast_to(ct.sum(part) * k, (1, 64))
    for src in (x, y):  # tensors
        t = t + ct.load_tile_like(src, z)
    for d in (1, 2, 4):
        if d == 2:  # decided while compiling
            t = t * 2.0
    for i in range(3):
        for s in (0.5, 2.0):
            f = flags.load_tile((1,), (i,)).reshape(())
            if f == 1:
                return
            t = t * s
    z.store(weighted((t, t * 2.0), (1.0, 0.5)))


@ct.kernel
def bad(z: Mut[Tensor[f32, (1, 64)]], x: Tensor[f32, (-1, -1)], N: Const[int]) -> None:
    t = z.load()
    for s in (1.0, 2.0):
        if s > 1.5:
            break  # E: CT113 "'break' in a loop over a tuple"
        t = t * s
    for s in (1.0, 2.0):
        continue  # E: CT113 "'continue'"
    for part in ct.split(t, N, axis=1):
        t = t + undefined_name  # E: CT103
    for a, b in zip((1, 2), x):  # E: CT113 "not over 'x'"
        t = t * a
    for a, b in enumerate((1.0, 2.0), start=0.5):  # E: CT209 "enumerate()'s start"
        t = t * b
    for a in enumerate():  # E: CT211 "enumerate()"
        t = t * a
    for a, b in zip((1.0, 2.0), (3.0,), strict=True):  # E: CT211 "lengths 2, 1"
        t = t * a
    for a, b in zip((1.0, 2.0), (3.0,)):  # Python's zip stops at the shorter
        t = t * a
    for a, b in (1.0, 2.0):  # E: CT211 "unpacking"
        t = t * a
    for s in (1.0, 2.0):
        pass
    else:
        pass  # E: CT101 "else on a loop"
    z.store(t)
