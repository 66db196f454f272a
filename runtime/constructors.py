"""Host constructors: `ct.zeros/ones/full/arange/rand/randn/from_numpy/meta`.

They allocate from the active backend and enqueue their fill or copy on the current stream, so
the host never waits for them: they are stream-ordered before every later launch. Random numbers
are drawn on the host with NumPy (`seed=` makes them reproducible on every backend) and copied.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..compiler import messages as msg
from ..compiler.dsl.markers import as_dtype
from ..compiler.dtypes import DType
from . import hostdtypes
from .backends.base import Backend
from .context import backend, current_stream
from .errors import launch_error
from .sites import caller_site
from .tensor import Tensor, contiguous_strides

_BAD_ARG = msg.BAD_CONSTRUCTOR_ARG

ShapeLike = tuple[int, ...] | int


def _shape(shape: ShapeLike) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in dims):
        raise launch_error(_BAD_ARG, caller_site(), what="shape",
                           want="a tuple of non-negative ints", got=shape)
    return dims


def _dtype(dtype: object) -> DType:
    d = as_dtype(dtype)
    if d is None:
        raise launch_error(_BAD_ARG, caller_site(), what="dtype", want="a cutile dtype such as "
                           "ct.f32", got=dtype)
    return d


def empty(shape: ShapeLike, dtype: object) -> Tensor:
    """Uninitialized memory (its contents are whatever the allocator hands out)."""
    dims, dt = _shape(shape), _dtype(dtype)
    be = backend()
    nbytes = max(1, math.prod(dims) * dt.itemsize)
    buf = be.allocate(nbytes, current_stream())
    return Tensor(be, buf, 0, dims, contiguous_strides(dims), dt)


def full(shape: ShapeLike, value: float | bool, dtype: object) -> Tensor:
    t = empty(shape, dtype)
    pattern = hostdtypes.encode(np.array([value]), t._dtype).tobytes()
    assert t._backend is not None and t._buf is not None
    if t.size:
        t._backend.fill(t._buf, pattern, t.size, current_stream())
    return t


def zeros(shape: ShapeLike, dtype: object) -> Tensor:
    return full(shape, 0, dtype)


def ones(shape: ShapeLike, dtype: object) -> Tensor:
    return full(shape, 1, dtype)


def arange(n: int, dtype: object) -> Tensor:
    """0, 1, ..., n-1 (like the kernel-side `ct.arange`)."""
    dims, dt = _shape((n,)), _dtype(dtype)
    return tensor_from_storage(backend(), hostdtypes.encode(np.arange(dims[0]), dt), dt)


def rand(shape: ShapeLike, dtype: object, seed: int | None = None) -> Tensor:
    """Uniform in [0, 1)."""
    dims, dt = _shape(shape), _dtype(dtype)
    values = np.random.default_rng(seed).random(dims, dtype=np.float64)
    return tensor_from_storage(backend(), hostdtypes.encode(values, dt), dt)


def randn(shape: ShapeLike, dtype: object, seed: int | None = None) -> Tensor:
    """Standard normal."""
    dims, dt = _shape(shape), _dtype(dtype)
    values = np.random.default_rng(seed).standard_normal(dims)
    return tensor_from_storage(backend(), hostdtypes.encode(values, dt), dt)


def from_numpy(array: NDArray[Any], dtype: object = None) -> Tensor:
    """A copy of a NumPy array. `dtype=ct.bf16` (or another dtype) converts while copying."""
    arr = np.asarray(array)
    dt = _dtype(dtype) if dtype is not None else hostdtypes.from_numpy_dtype(arr.dtype)
    if dt is None:
        raise launch_error(_BAD_ARG, caller_site(), what="from_numpy", want="an array of bool, "
                           "int, uint or float dtype", got=arr.dtype)
    return tensor_from_storage(backend(), hostdtypes.encode(arr, dt), dt)


def meta(shape: ShapeLike, dtype: object) -> Tensor:
    """Shape and dtype only, no memory: for `kernel.compile(...)` ahead of time."""
    dims = _shape(shape)
    return Tensor(None, None, 0, dims, contiguous_strides(dims), _dtype(dtype))


def tensor_from_storage(be: Backend, stored: NDArray[Any], dt: DType) -> Tensor:
    """A new tensor holding a copy of storage values (already in `dt`'s host layout)."""
    data = np.ascontiguousarray(stored)
    dims = tuple(int(n) for n in data.shape)
    stream = current_stream()
    buf = be.allocate(max(1, data.nbytes), stream)
    if data.nbytes:
        be.write(buf, 0, data, stream)
    return Tensor(be, buf, 0, dims, contiguous_strides(dims), dt)
