import cutile as ct
from cutile import Acc, Const, Mut, Tensor, f16, f32, i8, i32


@ct.kernel
def reads(acc: Acc[Tensor[f32, (-1, -1)], "add"], z: Mut[Tensor[f32, (16, 16)]],
          B: Const[int]) -> None:
    a = acc.load_tile((16, 16), (0, 0))  # E: CT216 "accumulate into it with acc.add"
    b = ct.load_tile_like(acc, z)  # E: CT216 "'load_tile_like' would read it"
    p = acc.partition((16, 16))  # E: CT216
    n = acc.store(ct.zeros((16, 16), f32), (0, 0))  # E: CT109
    z.store(ct.zeros((16, 16), f32))


@ct.kernel
def other_ops(acc: Acc[Tensor[f32, (-1,)], "add"], h: Acc[Tensor[i32, (-1,)], "max"]) -> None:
    t = ct.zeros((16,), f32)
    acc.max(t, (0,))  # E: CT216 "so it has acc.add()"
    acc.min_at((ct.arange(16, i32),), t)  # E: CT216 "not acc.min_at()"
    h.add(ct.zeros((16,), i32), (0,))  # E: CT216 "h.max() and h.max_at() only"
    h.max(ct.zeros((16,), i32), (0,))


@ct.kernel
def values(acc: Acc[Tensor[f32, (-1, -1)], "add"]) -> None:
    acc.add(ct.zeros((16, 16), f16), (0, 0))  # E: CT213 "astype(f32)"
    acc.add(ct.zeros((16,), f32), (0, 0))  # E: CT213 "rank 2"
    acc.add(1.0, (0, 0))  # E: CT213
    acc.add(ct.zeros((16, 16), f32), (0,))  # E: CT203
    acc.add_at((ct.arange(16, i32),), 1.0)  # E: CT203
    acc.add_at((ct.zeros((16,), f32), ct.arange(16, i32)), 1.0)  # E: CT211 "integer tiles"
    acc.add_at((ct.arange(16, i32), ct.arange(8, i32)), 1.0)  # E: CT201
    acc.add_at((ct.arange(16, i32), 0), ct.zeros((16,), f32))


@ct.kernel
def bad_or(a: Acc[Tensor[f32, (-1,)], "or"]) -> None:  # E: CT107 "accumulates integers"
    pass


@ct.kernel
def bad_op(a: Acc[Tensor[f32, (-1,)], "mul"]) -> None:  # E: CT107 "op one of"
    pass


@ct.kernel
def bad_width(a: Acc[Tensor[i8, (-1,)], "add"]) -> None:  # E: CT107 "32- or 64-bit"
    pass


@ct.kernel
def bad_half_max(a: Acc[Tensor[f16, (-1,)], "max"]) -> None:  # E: CT107 "f32, f64"
    pass


@ct.kernel
def bad_form(a: Acc[Tensor[f32, (-1,)]]) -> None:  # E: CT107 "Acc[Tensor[dtype, shape], op]"
    pass


@ct.kernel
def not_tensor(a: Acc[f32, "add"]) -> None:  # E: CT107 "only tensors"
    pass


@ct.kernel
def scalar_acc(a: Acc[Tensor[f32, ()], "add"]) -> None:  # E: CT107 "rank 1 or more"
    pass
