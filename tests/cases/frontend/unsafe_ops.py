"""Index-addressed stores break disjointness: only @ct.kernel(unsafe=True) may use them."""
import cutile as ct
from cutile import Mut, Tensor, f16, f32


@ct.kernel
def safe(z: Mut[Tensor[f32, (64,)]], out: Tensor[f32, (-1,)], x: Tensor[f32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    out.store(t, (0,))  # E: CT112 "unsafe=True"
    z.store(t, 3)  # E: CT407
    z.store(t)


@ct.kernel(unsafe=True)  # E: CT115 "is unsafe"
def scatter(out: Tensor[f32, (-1, -1)], z: Mut[Tensor[f32, (16, 16)]],
            x: Tensor[f32, (-1, -1)]) -> None:
    i = ct.block_id(0)
    t = x.load_tile((16, 16), (i, 0))
    out.store(t, (0, i))
    z.store(t, (i, 0))  # E: CT407 "only the origin"
    out.store(t.astype(f16), (0, 0))  # E: CT213 "astype(f32)"
    out.store(ct.sum(t, 0), (0, 0))  # E: CT213 "rank 2"
    out.store(t, 0)  # E: CT203
