"""Inputs made with NumPy whose shape and dtype the code shows (`np.ones((37, 100),
np.float32)`, NumPy's float64 default, `np.full` taking its fill value's dtype, `.astype`) reach
`ct.from_numpy` with that shape and dtype: launches are checked as those of `ct.ones(...)` are,
at the same lines as the run."""

import numpy as np

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def double(y: Mut[Tensor[f32, (64,)]], x: Tensor[f32, (-1,)]) -> None:
    y.store(ct.load_tile_like(x, y) * 2.0)


y = ct.zeros((100,), f32).partition((64,))
x = ct.from_numpy(np.ones(100, np.float32))
y, x = double(y, x).sync()

x = ct.from_numpy(np.zeros(100))  # float64, NumPy's default
y, x = double(y, x).sync()  # E: CT406

y = ct.zeros((100,), f32).partition((64,))
x = ct.from_numpy(np.full((100,), 3))  # int64, from the fill value
y, x = double(y, x).sync()  # E: CT406

y = ct.zeros((100,), f32).partition((64,))
x = ct.from_numpy(np.random.rand(100).astype(np.float32))
y, x = double(y, x).sync()

x = ct.from_numpy(np.random.rand(100))
y, x = double(y, x).sync()  # E: CT406

y = ct.zeros((100,), f32).partition((64,))
x = ct.from_numpy(np.zeros(100), dtype=f32)
y, x = double(y, x).sync()
