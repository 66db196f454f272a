import cutile as ct
from cutile import Const, Mut, Tensor

kern = ct.kernel  # one of cutile's objects under another name, as `import ... as` would
helper = ct.function
F32 = ct.f32
exp = ct.exp


@helper
def doubled(t):
    return t * 2.0


@kern
def uses_aliases(z: Mut[Tensor[F32, ("B",)]], x: Tensor[F32, (-1,)], B: Const[int]) -> None:
    z.store(exp(doubled(ct.load_tile_like(x, z))).astype(F32))


other = ct.kernel
other = print  # bound twice: what it names depends on the line


@kern
def rebound(z: Mut[Tensor[F32, (64,)]], x: Tensor[F32, (-1,)]) -> None:
    t = ct.load_tile_like(x, z)
    z.store(other(t))  # E: CT104
