"""An autotuned kernel's call is the kernel's own launch (`ct.autotune(kernel, ...)` at module
level or in a function, and `@ct.autotune(...)` above `@ct.kernel`): its Mut argument is moved
(CT301 after it), its arguments are checked (CT406, CT401), the Consts its configs do not give
are missing (CT405) and a launch never run is CT305. A config that re-partitions the Mut
argument (`tile=`) hides the tile the kernel sees."""

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def scale(y: Mut[Tensor[f32, ("BM", 100)]], x: Tensor[f32, (-1, -1)], BN: Const[int],
          BM: Const[int]) -> None:
    y.store(ct.load_tile_like(x, y) * 2.0)


@ct.autotune(configs=[ct.Config(BN=64), ct.Config(BN=128, occupancy=2)])
@ct.kernel
def tuned_scale(y: Mut[Tensor[f32, ("BM", 100)]], x: Tensor[f32, (-1, -1)], BN: Const[int],
                BM: Const[int]) -> None:
    y.store(ct.load_tile_like(x, y) * 3.0)


tuned = ct.autotune(scale, key=["x"], configs=[ct.Config(BN=64, tile=(2, -1)),
                                               ct.Config(BN=32)])
x = ct.ones((37, 100), f32)

out = ct.zeros((37, 100), f32).partition((1, 100))
out, x = tuned(out, x).sync()
tuned(out, x).sync()
out.unpartition()  # E: CT301

out = ct.zeros((37, 100), f32).partition((1, 100))
out, x = tuned_scale(out, x).sync()
tuned_scale(out, ct.ones((37, 100), ct.f16)).sync()  # E: CT406
tuned_scale(out, x)  # E: CT305

untiled = ct.autotune(scale, configs=[ct.Config(BN=64)])
out = ct.zeros((37, 100), f32).partition((1, 50))
untiled(out, x).sync()  # E: CT401

no_consts = ct.autotune(scale, configs=[ct.Config(occupancy=2)])
out = ct.zeros((37, 100), f32).partition((1, 100))
no_consts(out, x).sync()  # E: CT405


def in_a_function() -> None:
    local = ct.autotune(scale, configs=[ct.Config(BN=64)])
    out = ct.zeros((37, 100), f32).partition((1, 100))
    local(out, x).sync()
    out.unpartition()  # E: CT301


in_a_function()
