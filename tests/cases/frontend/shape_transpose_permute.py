import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def perm(z: Mut[Tensor[f32, (8, 16, 32)]], w: Mut[Tensor[f32, (64, 32)]],
         x: Tensor[f32, (-1, -1, -1)], y: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((32, 8, 16), (0, 0, 0))
    z.store(ct.permute(t, (1, 2, 0)))
    z.store(ct.permute(t, (-2, -1, 0)))
    m = y.load_tile((32, 64), (0, 0))
    w.store(m.transpose())


@ct.kernel
def bad(z: Mut[Tensor[f32, (8, 16, 32)]], x: Tensor[f32, (-1, -1, -1)]) -> None:
    t = x.load_tile((32, 8, 16), (0, 0, 0))
    a = t.transpose()  # E: CT203 "rank 2"
    b = ct.permute(t, (0, 1))  # E: CT206 "not a permutation"
    c = ct.permute(t, (0, 0, 1))  # E: CT206
    d = ct.permute(t, (0, 1, 3))  # E: CT206
    e = ct.permute(t, 1)  # E: CT206
    z.store(a + b + c + d + e)
