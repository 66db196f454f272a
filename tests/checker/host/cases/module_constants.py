"""Module constants are constant expressions in host code too: extents, tile shapes and
indices written with them are known (and shown) as numbers, as the runtime shows them."""

import cutile as ct
from cutile import f32

M = 37
N = 80
K = 2 * M + 1
SHAPE = (M, N)

buf = ct.zeros((M, N), f32)
v = buf.narrow(0, 30, 10)  # E: CT406
p = buf.partition((8,))  # E: CT408

other = ct.zeros(SHAPE, f32)
w = other.narrow(1, K, 10)  # E: CT406
row = other[M]  # E: CT406
fine = other[M - 1]
