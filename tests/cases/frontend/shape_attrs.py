"""t.shape, t.ndim and t.dtype are compile-time values."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32, i32


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
def slices(z: Mut[Tensor[f32, (1, 100)]], w: Tensor[f32, (100,)]) -> None:
    row = w.load_tile(z.tile_shape[1:], (0,))  # a static tuple slices as a Python tuple
    last = ct.zeros(z.tile_shape[::-1], f32).transpose()
    z.store(z.load() * row.reshape(z.tile_shape) + last + z.tile_shape[:1][0])


@ct.kernel
def bad_slice(z: Mut[Tensor[f32, (16, 64)]], k: i32) -> None:
    t = z.load()
    u = ct.zeros(t.shape[k:], f32)  # E: CT209
    v = ct.zeros(t.shape[::0], f32)  # E: CT209 "slice step"
    z.store(t + u + v)


@ct.kernel
def bad(z: Mut[Tensor[f32, (16, 64)]], x: Tensor[f16, (-1, -1)]) -> None:
    t = ct.load_tile_like(x, z)
    a = ct.zeros(x.shape, f32)  # E: CT209 "shape of zeros()"
    b = t.shape[2]  # E: CT209
    c = t.size  # E: CT109 "no attribute 'size'"
    z.store(a + b + c)
