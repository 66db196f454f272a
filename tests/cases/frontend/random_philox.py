import cutile as ct
from cutile import Mut, Tensor, f32, i16, i32, i64, u32


@ct.kernel
def good(z: Mut[Tensor[f32, (64,)]], w: Mut[Tensor[u32, (64,)]], seed: i64, s32: i32) -> None:
    offs = ct.arange(64) + ct.block_id(0) * 64
    z.store(ct.rand(seed, offs) + ct.rand(42, offs) + ct.rand(s32, offs.astype(u32)))
    w.store(ct.randint(seed, offs) ^ ct.randint(7, 3))


@ct.kernel
def bad(z: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], seed: f32) -> None:
    offs = ct.arange(64)
    t = ct.load_tile_like(x, z)
    a = ct.rand(seed, offs)  # E: CT211 "integer scalar"
    b = ct.rand(offs, offs)  # E: CT211 "integer scalar"
    c = ct.rand(1, t)  # E: CT211 "i32, u32, i64 or u64"
    d = ct.randint(1, offs.astype(i64))  # 64-bit offsets: the high word is the second counter
    f = ct.randint(1, offs.astype(i16))  # E: CT211 "i16 tiles"
    e = ct.rand(1)  # E: CT110
    z.store(t)
