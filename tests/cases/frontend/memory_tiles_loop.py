import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def ok(z: Mut[Tensor[f32, (16, 16)]], y: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    px = x.partition((16, 16))
    total = ct.zeros((16, 16), f32)
    for zt in z.tiles():
        t = px.load(zt.tile_index())
        total = total + t + ct.load_tile_like(x, zt) + zt.load()
        zt.store(t * 2.0)
        n = zt.shape[0] + zt.ndim
        zt.store(t * n)
    y.store(total)


@ct.kernel
def ok_after(z: Mut[Tensor[f32, (16,)]]) -> None:
    for zt in z.tiles():
        zt.store(zt.load() + 1.0)
    z.store(ct.zeros((16,), f32))


@ct.kernel
def old_form(z: Mut[Tensor[f32, (16,)]]) -> None:
    for idx in z.tiles():
        z.store(z.load() + 1.0, idx)  # E: CT409


@ct.kernel
def parent_inside(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1,)]) -> None:
    for zt in z.tiles():
        t = ct.load_tile_like(x, z)  # E: CT409
        if t.shape[0] > 4:
            i = z.tile_index()  # E: CT409
        zt.store(t)


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 16)]], y: Mut[Tensor[f32, (16, 16)]], x: Tensor[f32, (-1, -1)]) -> None:
    for idx in x.tiles():  # E: CT211
        pass
    for zt in z.tiles():
        y.store(ct.zeros((16, 16), f32), zt.tile_index())  # E: CT407
        zt.store(ct.zeros((16, 16), f32), (0, 0))  # the origin: the one index inside
        zt.store(ct.zeros((16, 16), f32), (0, 1))  # E: CT407 "covers the whole slab"
        zt.store(ct.zeros((16, 8), f32))  # E: CT213
    for i in z.tiles(4):  # E: CT113
        pass
    for (i, j) in z.tiles():  # E: CT113
        pass
