import cutile as ct
from cutile import Const, Mut, Tensor, f32, i32


@ct.kernel
def hinted(z: Mut[Tensor[f32, (1, 64)]], x: Tensor[f32, (-1, -1)], LAT: Const[int],
           TMA: Const[bool]) -> None:
    p = x.partition((1, 64))
    t = p.load((0, 0), latency=LAT, allow_tma=TMA) + x.load_tile((1, 64), (0, 1), latency=10)
    t = t + z.load(latency=3) + z.load((1, 32), (0, 1), allow_tma=False)
    z.store(t + ct.load_tile_like(x, z, allow_tma=False, latency=1, padding=0.0))


@ct.kernel
def bad(z: Mut[Tensor[f32, (1, 64)]], x: Tensor[f32, (-1, -1)], n: i32) -> None:
    p = x.partition((1, 64))
    a = p.load((0, 0), latency=0)  # E: CT217 "latency must be an int from 1 to 10, not 0"
    b = p.load((0, 0), latency=11)  # E: CT217
    c = x.load_tile((1, 64), (0, 0), latency=2.5)  # E: CT217 "not 2.5"
    d = x.load_tile((1, 64), (0, 0), latency=True)  # E: CT217
    e = ct.load_tile_like(x, z, allow_tma=1)  # E: CT217 "allow_tma must be True or False"
    f = p.load((0, 0), latency=n)  # E: CT209 "the latency of load()"
    g = z.load(allow_tma="no")  # E: CT217 "allow_tma must be True or False, not 'no'"
    z.store(a + b + c + d + e + f + g)
