"""Module-level names bound once to a literal are compile-time constants in kernels."""
import numpy as np

import cutile as ct
from cutile import Mut, Tensor, f32

BLOCK = 128
SHAPE = (128, 64)
SCALE = 0.5
NAME = "rows"
ENABLED = True
COUNTER = 0
COUNTER = 1
TABLE = np.zeros(4)
RATE = SCALE * 2

for _i in range(3):
    LOOPED = _i


@ct.kernel
def use(z: Mut[Tensor[f32, (128, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((128, 64), (0, 0))
    u = x.load_tile(SHAPE, (0, 0))
    if ENABLED:
        t = t * SCALE
    z.store(t + u + ct.zeros((BLOCK, 64), f32))


@ct.kernel
def bad(z: Mut[Tensor[f32, (128, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = x.load_tile((COUNTER, 64), (0, 0))  # E: CT103 "not a compile-time constant"
    b = TABLE  # E: CT103
    c = RATE  # E: CT103
    d = LOOPED  # E: CT103
    e = undefined_thing  # E: CT103 "not defined"
    f = np.exp(x)  # E: CT104
    z.store(a + b + c + d + e + f)
