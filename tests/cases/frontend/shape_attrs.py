"""t.shape, t.ndim and t.dtype are compile-time values."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def attrs(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f16, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    rows = t.shape[0]
    u = ct.zeros(t.shape, t.dtype) + t
    v = ct.zeros((rows, t.shape[-1]), f32) + z.shape[1]
    w = u.reshape((t.shape[1], rows)).transpose()
    n = x.shape[1]  # a read-only tensor's dynamic extent: an i32 scalar
    z.store(u.astype(z.dtype) + v + w.astype(f32) + t.ndim + n.astype(f32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f16, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.zeros(x.shape, f32)  # E: CT209 "shape of zeros()"
    b = t.shape[2]  # E: CT209
    c = t.size  # E: CT109 "no method 'size'"
    z.store(a + b + c)
