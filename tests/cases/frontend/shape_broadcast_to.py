import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bcast(z: Mut[Tensor[f32, (32, 64)]], x: Tensor[f32, (-1,)]) -> None:
    row = x.load_tile((64,), 0)
    z.store(ct.broadcast_to(row, (32, 64)))
    z.store(ct.broadcast_to(ct.zeros((32, 1), f32), (32, 64)))
    z.store(ct.broadcast_to(1.0, (32, 64)))


@ct.kernel
def bad(z: Mut[Tensor[f32, (32, 64)]], x: Tensor[f32, (-1,)]) -> None:
    row = x.load_tile((64,), 0)
    a = ct.broadcast_to(row, (64, 32))  # E: CT201 "broadcast a tile of shape (64,) to (64, 32)"
    b = ct.broadcast_to(ct.zeros((32, 64), f32), (64,))  # E: CT201
    c = ct.broadcast_to(row, (48, 64))  # E: CT208
    z.store(a + b + c)
