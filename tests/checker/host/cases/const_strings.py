"""A Const[str] picks a code path at compile time (Triton's string constexpr): each string is
its own specialization; anything but a string is CT406 at the launch, on both sides."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.function
def activation(x, kind: str):
    if kind == "relu":
        return ct.maximum(x, 0.0)
    elif kind == "square":
        return x * x
    return x


@ct.kernel
def act(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], KIND: Const[str] = "relu") -> None:
    z.store(activation(ct.load_tile_like(x, z), KIND))


x = ct.full((128,), -2.0, f32)
z = ct.zeros((128,), f32).partition((64,))
z, x = act(z, x).sync()  # the default: relu
z, x = act(z, x, KIND="square").sync()
z, x, _ = act(z, x, "none").sync()  # positional: .sync() hands it back too
z, x = act(z, x, KIND=2).sync()  # E: CT406
z, x = act(z, x, KIND=None).sync()  # E: CT406
