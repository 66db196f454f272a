import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)

    def inner(v):  # E: CT106 "move 'inner' to module level"
        return v * 2.0

    @ct.function
    def also_inner(v):  # E: CT106
        return v

    z.store(t)
