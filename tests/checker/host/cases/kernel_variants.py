"""A kernel's variants (`with_hints`, `dependent`) launch as the kernel does: their launches move
and lease their arguments, and the checker follows them as it follows the kernel's own."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def inc(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(z.load() + 1.0)


hinted = inc.with_hints(occupancy=2)
q = ct.zeros((256,), f32).partition((128,))
hinted(q).sync()
hinted(q).sync()  # E: CT301
fast = inc.dependent()
r = ct.zeros((256,), f32).partition((128,))
(back,) = fast(r).sync()
(back,) = fast(back).then(lambda z: fast(z)).sync()
fast(r)  # E: CT301
fast.with_hints(occupancy=1)(back).sync()
