import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def debug(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    t = ct.load_tile_like(x, z)
    ct.printf("block %d of %d\n", ct.block_id(0), n)
    ct.printf("sum %f", ct.sum(t, 0))
    ct.printf("done")
    ct.device_assert(t > -1.0, "values must be above -1")
    ct.device_assert(n >= 0)
    z.store(t)


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], fmt: i32) -> None:
    t = ct.load_tile_like(x, z)
    ct.printf(fmt, t)  # E: CT209 "format of printf"
    ct.printf(f"{t}")  # E: CT102 "F-strings"
    ct.device_assert(t, "no")  # E: CT211 "f32 condition"
    ct.device_assert(t > 0.0, t)  # E: CT209
    ct.printf("%f", x)  # E: CT211 "load it first"
    z.store(t)
