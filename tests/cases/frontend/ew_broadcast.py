import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def broadcast(z: Mut[Tensor[f32, (64, 128)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = ct.load_tile_like(x, z)
    row = ct.zeros((128,), f32)
    col = ct.zeros((64, 1), f32)
    one = ct.zeros((1,), f32)
    z.store(a + row + col + one + ct.zeros((1, 1), f32))
    z.store(col + row)
    z.store(ct.zeros((1, 128), f32) * col)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64, 128)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = ct.load_tile_like(x, z)
    b = a + ct.zeros((64,), f32)  # E: CT201 "shapes (64, 128) and (64,)"
    c = a * ct.zeros((2, 128), f32)  # E: CT201
    d = ct.zeros((128,), f32) - ct.zeros((64,), f32)  # E: CT201 "cannot subtract"
    e = ct.maximum(a, ct.zeros((32, 128), f32))  # E: CT201
    z.store(b + c + d + e)
