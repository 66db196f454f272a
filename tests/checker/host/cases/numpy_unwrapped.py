"""A NumPy array passed where a tensor or a number goes is CT406 at the argument, in the run's
words (`got a numpy.ndarray (float32, shape (100,)); wrap it with ct.from_numpy(...) ...`, and
for a number parameter without the advice to wrap it); a 0-d array is its number."""

import numpy as np

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def scale(y: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)], s: f32) -> None:
    y.store(ct.load_tile_like(x, y) * s)


y = ct.zeros((100,), f32).partition((64,))
x = ct.from_numpy(np.ones(100, np.float32))
y, x, _ = scale(y, np.ones(100, np.float32), 2.0).sync()  # E: CT406
y, x, _ = scale(y, x, np.ones(3, np.float32)).sync()  # E: CT406
y, x, _ = scale(y, x, np.zeros((), np.float32)).sync()
