import cutile as ct
from cutile import Const, DType, Mut, Tensor, f32


@ct.kernel
def undeclared(z: Mut[Tensor["T", (64,)]],  # E: CT107 "must name a Const[DType] parameter"
               x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def not_a_dtype_const(z: Mut[Tensor["N", (64,)]],  # E: CT107 "'N' names a Const[int] parameter"
                      N: Const[int]) -> None:
    z.store(ct.zeros((64,), f32))


@ct.kernel
def shape_names_a_dtype(z: Mut[Tensor[f32, ("T",)]],  # E: CT107 "must name a Const[int]"
                        T: Const[DType]) -> None:
    z.store(ct.zeros((64,), f32))


@ct.kernel
def bare_name(z: Mut[Tensor[f32, (64,)]],
              x: Tensor[half, (-1,)],  # E: CT107 "or the name of a Const[DType] parameter"
              ) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def not_a_name(z: Mut[Tensor[32, (64,)]]) -> None:  # E: CT107 "cutile dtype such as f32"
    z.store(ct.zeros((64,), f32))


@ct.kernel
def body_errors(z: Mut[Tensor["T", (64,)]], x: Tensor["T", (-1,)], T: Const[DType]) -> None:
    t = ct.load_tile_like(x, z)
    n = undefined_name  # E: CT103
    z.store(t + n)
