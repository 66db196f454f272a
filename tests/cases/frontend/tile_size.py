import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def sizes(z: Mut[Tensor[f32, (16,)]], x: Tensor[f32, (-1, -1)], B: Const[int]) -> None:
    ok = ct.zeros((4096, 4096), f32)  # 2**24 elements: the largest tile
    big = ct.zeros((8192, 4096), f32)  # E: CT218 "has 33554432 elements, more than the 16777216"
    wide = x.load_tile((1, 2**25), (0, 0))  # E: CT218 "a tile of shape (1, 33554432)"
    grown = ct.broadcast_to(ct.zeros((1, 4096), f32), (8192, 4096))  # E: CT218
    later = ct.zeros((B, B), f32)  # B is known only when the kernel is specialized
    z.store(ct.sum(ok, 0).reshape((16, 256))[:, 0] + ct.sum(later, 0)[0])
