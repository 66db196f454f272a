import cutile as ct
from cutile import Mut, Tensor, bool_, f32, i32


@ct.kernel
def unary(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[i32, (64,)]], m: Mut[Tensor[bool_, (64,)]],
          x: Tensor[f32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    z.store(-a + +a)
    i = a.astype(i32)
    w.store(~i + -i)
    m.store(~(a > 0.0))
    n = -(-3)
    w.store(i * n)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    a = ct.load_tile_like(x, z)
    b = ~a  # E: CT211 "f32 tiles"
    c = -(a > 0.0)  # E: CT211 "bool_"
    z.store(b + c)
