import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32) -> None:
    for i in range(n):
        t = ct.load_tile_like(x, z)
    z.store(t)  # E: CT111 "inside a loop"
    while n > 0:
        u = ct.load_tile_like(x, z)
    z.store(u)  # E: CT111
    z.store(i)  # E: CT111
    z.store(u + t)  # E: CT111
