"""Module-level names bound once to a constant expression are compile-time constants in kernels:
literals, tuples, math/NumPy constants, float("...") and arithmetic on them and on earlier
constants. Anything else (an object, a name bound twice or in a loop, an expression that raises
or would build a huge number) is not."""
import math

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
NEG_INF = -math.inf
ALSO_NEG_INF = float("-inf")
TAU_HALF = np.pi
WIDTH = 1 << 6
THIRD = 1.0 / 3.0
ROWS = (BLOCK // 2) * ((WIDTH % 5) - 3) ** 2
TILE = (ROWS, WIDTH)
BY_ZERO = 1 / 0 if False else 1 // 0
HUGE = 1 << 100000
POWER = 10 ** 10 ** 10
NOT_A_NUMBER = "a" * 3
NESTED_BAD = (BLOCK, TABLE)
ROWS2, (COLS2, DEPTH2) = 32, (64, 2)
FIRST, *REST = (1, 2, 3)

for _i in range(3):
    LOOPED = _i


@ct.kernel
def use(z: Mut[Tensor[f32, (128, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    t = x.load_tile((128, 64), (0, 0))
    u = x.load_tile(SHAPE, (0, 0))
    if ENABLED:
        t = t * SCALE * RATE
    m = ct.max(x.load_tile(TILE, (0, 0), padding=NEG_INF), 0, keepdims=True)
    m = m + ct.sum(x.load_tile((ROWS2, COLS2 // DEPTH2 * 2), (0, 0)), 0, keepdims=True)
    n = ct.maximum(m, ALSO_NEG_INF) * THIRD * TAU_HALF
    z.store(t + u + ct.zeros((BLOCK, WIDTH), f32) + ct.broadcast_to(n, (128, 64)))


@ct.kernel
def bad(z: Mut[Tensor[f32, (128, 64)]], x: Tensor[f32, (-1, -1)]) -> None:
    a = x.load_tile((COUNTER, 64), (0, 0))  # E: CT103 "not a compile-time constant"
    b = TABLE  # E: CT103
    c = BY_ZERO  # E: CT103
    d = LOOPED  # E: CT103
    e = undefined_thing  # E: CT103 "not defined"
    f = np.exp(x)  # E: CT104
    g = HUGE + POWER  # E: CT103
    h = NOT_A_NUMBER  # E: CT103
    i = NESTED_BAD  # E: CT103
    j = FIRST  # E: CT103
    z.store(a + b + c + d + e + f + g + h + i + j)
