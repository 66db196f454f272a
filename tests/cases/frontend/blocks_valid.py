import cutile as ct
from cutile import Mut, Tensor, f32, i32


@ct.kernel
def blocks(z: Mut[Tensor[i32, (1,)]], x: Tensor[f32, (-1, -1)]) -> None:
    row = ct.block_id(0)
    n = ct.num_blocks(0) * ct.num_blocks(1) + ct.num_blocks(2)
    col = ct.block_id(axis=1) + ct.block_id(2)
    t = x.load_tile((16, 16), (row, col))
    z.store(ct.full((1,), n + row * 2, i32))
    _ = t
