import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32, i32


@ct.kernel
def create(z: Mut[Tensor[f32, (4, 128)]], w: Mut[Tensor[i32, (128,)]], v: f32,
           B: Const[int]) -> None:
    a = ct.full((4, 128), 2.5, f32)
    b = ct.zeros((4, 128), f32)
    c = ct.ones((4, 128), f16).astype(f32)
    d = ct.full((4, 128), v, f32)
    e = ct.full((4, B), 0, f32)
    r = ct.arange(128, f32)
    z.store(a + b + c + d + r + ct.sum(e, 1, keepdims=True))
    w.store(ct.arange(128) + ct.arange(128, i32) + ct.full((128,), -1, i32))
