import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def dynamic(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], n: i32, flag: ct.bool_) -> None:
    t = ct.load_tile_like(x, z)
    i = ct.block_id(0)
    if i == 0:
        t = t * 2.0
    if (n > 3) & flag:
        t = t + 1.0
    elif n < 0:
        t = t - 1.0
    if flag:
        pass
    else:
        t = -t
    if not flag:
        t = t * 0.5
    z.store(t)
