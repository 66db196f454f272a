import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def missing(z: Mut[Tensor[f32, (64,)]], x) -> None:  # E: CT107 "needs an annotation"
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def star(z: Mut[Tensor[f32, (64,)]], *args: f32, **kw: f32) -> None:  # E: CT107 CT107
    z.store(0.0)


@ct.kernel
def default(z: Mut[Tensor[f32, (64,)]], k: Const[int] = 4, s: Const[float] = 0.5,
            flag: Const[bool] = False) -> None:  # Consts take literal defaults
    z.store(ct.full((64,), k, f32) * s + flag)


@ct.kernel
def bad_defaults(z: Mut[Tensor[f32, (64,)]], n: i32 = 3,  # E: CT107 "only Const parameters"
                 k: Const[int] = 4.5,  # E: CT107 "Const[int] takes a literal of its kind"
                 b: Const[bool] = 1) -> None:  # E: CT107 "Const[bool]"
    z.store(ct.full((64,), k, f32) + n.astype(f32) + b)


@ct.kernel
def annotations(
    a: Tensor[f32],  # E: CT107 "Tensor[dtype, shape]"
    b: Mut[Const[int]],  # E: CT107 "only tensors can be Mut"
    c: Tensor[float, (-1,)],  # E: CT107 "cutile dtype"
    d: Tensor[f32, -1],  # E: CT107 "must be a tuple"
    e: Tensor[f32, ("M",)],  # E: CT107 "must name a Const[int]"
    f: Const[list],  # E: CT107
    g: list[int],  # E: CT107
    h: Tensor[f32, (-2,)],  # E: CT107
) -> None:
    t = a + b + c + d + e + f + g + h
    z = t
