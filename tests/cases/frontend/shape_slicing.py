import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def good(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)], H: Const[int]) -> None:
    t = x.load_tile((16, 64), (0, 0))
    lo, hi = ct.split(t, 2, 1)
    parts = ct.split(t, 4, axis=0)
    r = t[2][0:32] + t[-1, 32:] + parts[0][1, :32]
    z.store(lo + hi + t[:, 0:32] + ct.extract(t, (0, 1), (16, 32)) + t[:, H:H + 32] + r)


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 32)]], x: Tensor[f32, (-1, -1)], n: f32) -> None:
    t = x.load_tile((16, 64), (0, 0))
    a = t[:, 16:48]  # E: CT201 "multiple of its length 32"
    b = t[:, 0:48]  # E: CT208
    c = t[:, 64:96]  # E: CT201 "outside a tile of extent 64"
    d = t[16]  # E: CT201 "index 16 of axis 0"
    e = t[0, 0, 0]  # E: CT203
    f = t[:, n:]  # E: CT209 "slice bound"
    g = ct.split(t, 3, 1)  # E: CT201 "3 equal"
    h = ct.extract(t, (0, 2), (16, 32))  # E: CT201 "block index (0, 2)"
    i = ct.extract(t, (0, 0), (16, 48))  # E: CT208
    k = ct.extract(t, 0, (16, 32))  # E: CT201 "block index 0"
    m = ct.split(t, 2, 2)  # E: CT206
    z.store(t[:, :32])
