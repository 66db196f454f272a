import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (16, 16)]], y: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    px = x.partition((16, 16))
    total = ct.zeros((16, 16), f32)
    for idx in z.tiles():
        t = px.load(idx)
        total = total + t
        z.store(t * 2.0, idx)
    y.store(total)


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 16)]], y: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    for idx in x.tiles():  # E: CT211
        pass
    for idx in z.tiles():
        y.store(ct.zeros((16, 16), f32), idx)  # E: CT407
    for i in z.tiles(4):  # E: CT113
        pass
