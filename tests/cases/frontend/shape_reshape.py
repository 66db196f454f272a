import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def reshape(z: Mut[Tensor[f32, (16, 8)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    t = x.load_tile((128,), 0)
    z.store(t.reshape((16, 8)))
    z.store(t.reshape((2, 64)).reshape((128,)).reshape((16, 8)))
    u = t.reshape((B, 1))
    z.store(t.reshape((-1, 8)))  # (16, 8): NumPy's -1
    z.store(t.reshape((2, -1)).reshape((16, -1)))
    v = t.reshape((B, -1))  # a Const: inferred when the launch gives B
    _ = u, v


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 8)]], x: Tensor[f32, (-1,)], n: f32) -> None:
    t = x.load_tile((128,), 0)
    a = t.reshape((16, 16))  # E: CT207 "(128,) (128 elements) to (16, 16) (256 elements)"
    b = t.reshape((12, 8))  # E: CT208
    c = t.reshape(n)  # E: CT209
    d = t.reshape(128)
    e = x.reshape((128,))  # E: CT109
    f = t.reshape((-1, -1))  # E: CT207 "one dimension given as -1, not 2"
    g = t.reshape((-1, 3))  # E: CT207 "(128,) (128 elements) to (-1, 3) (a multiple of 3 elements)"
    h = t.reshape((-1, 256))  # E: CT207
    z.store(a + b + c + d + e + f + g + h)
