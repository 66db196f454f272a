"""An example with a known error for the real-VS-Code test: a dtype mix (CT202) on line 13."""

import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def scale(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    half = tx.astype(f16)
    # Mixing f32 and f16 tiles needs an explicit .astype(): the editor underlines `half`.
    z.store(
        tx + half)
