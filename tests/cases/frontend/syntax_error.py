import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def broken(z: Mut[Tensor[f32, (64,)]]) -> None:
    z.store(ct.zeros((64,), f32)  # E: CT100
