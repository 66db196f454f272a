"""Host constructors: `ct.zeros/ones/full/arange/rand/randn/from_numpy/meta`.

They allocate from the active backend and enqueue their fill or copy on the current stream, so
the host never waits for them: they are stream-ordered before every later launch. Random numbers
are drawn on the host with NumPy (`seed=` makes them reproducible on every backend) and copied.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..compiler.dsl.markers import as_dtype
from ..compiler.dtypes import DType
from ..compiler.hostapi.shapes import (
    MAX_ELEMENTS,
    Problem,
    count_problem,
    dtype_problem,
    float_dtype_problem,
    seed_problem,
    shape_problem,
)
from ..compiler.launch.regions import contiguous_strides
from ..diagnostics import messages as msg
from . import hostdtypes, limits
from .context import backend, current_stream
from .copying import NUMBERS, native, to_storage
from .dlpack import import_dlpack
from .errors import launch_error
from .ownership import State, check_usable
from .sites import argument_label, argument_span, caller_site
from .tensor import Tensor, allocate, tensor_from_storage

_BAD_ARG = msg.BAD_CONSTRUCTOR_ARG

ShapeLike = tuple[int, ...] | int


def _shape(shape: ShapeLike, what: str) -> tuple[int, ...]:
    """A tuple of non-negative ints (an int is a rank-1 shape) whose element count fits in 63
    bits; anything else is a coded error, never a TypeError from iterating it."""
    if type(shape) is tuple and all(type(d) is int and d >= 0 for d in shape) and (
            math.prod(shape) <= MAX_ELEMENTS):  # the usual shape, accepted as it is
        return shape
    _raise(shape_problem(what, shape))
    return tuple(int(d) for d in ((shape,) if not isinstance(shape, tuple | list) else shape))


def _host_values(what: str, dims: tuple[int, ...], dt: DType,
                 make: Callable[[], NDArray[Any]]) -> NDArray[Any]:
    """Values computed on the host in float64/int64 before the copy: checked against the
    backend's memory first (so the error names the tensor), then against the host's."""
    nbytes = math.prod(dims) * dt.itemsize
    site = caller_site()
    limits.check_fits(what, dims, dt, nbytes, backend().memory_limit(), site)
    host = limits.host_memory()
    scratch = math.prod(dims) * 8
    limits.check_fits(what, dims, dt, scratch, None if host is None else (
        host, "the host's memory for the float64 values it draws first"), site)
    def draw() -> NDArray[Any]:
        limits.refuse_if_unavailable(scratch)
        return make()
    return limits.allocating(what, dims, dt, scratch, site, draw)


def _raise(problem: Problem | None) -> None:
    """A constructor argument's problem (compiler/hostapi/shapes.py: the checker's rule too) as
    CT406 at the user's call."""
    if problem is not None:
        raise launch_error(problem[0], caller_site(), **problem[1])


def _dtype(dtype: object) -> DType:
    _raise(dtype_problem(dtype))
    d = as_dtype(dtype)
    assert d is not None
    return d


def _float_dtype(dtype: object, what: str) -> DType:
    """The dtype of `ct.rand`/`ct.randn`: a float one."""
    d = _dtype(dtype)
    _raise(float_dtype_problem(what, d))
    return d


def empty(shape: ShapeLike, dtype: object) -> Tensor:
    """Uninitialized memory (its contents are whatever the allocator hands out)."""
    return _empty(shape, dtype, "ct.empty")


def _empty(shape: ShapeLike, dtype: object, what: str) -> Tensor:
    return _allocated(_shape(shape, what), _dtype(dtype), what)


def _allocated(dims: tuple[int, ...], dt: DType, what: str) -> Tensor:
    """A new tensor of checked `dims` and `dt`, uninitialized."""
    be = backend()
    buf = allocate(be, what, dims, dt)
    return Tensor(be, buf, 0, dims, contiguous_strides(dims), dt)


def full(shape: ShapeLike, value: float | bool, dtype: object) -> Tensor:
    return _full(shape, dtype, value, "ct.full")


def _full(shape: ShapeLike, dtype: object, value: object, what: str) -> Tensor:
    """A new tensor of `value` (`what`: the constructor errors name)."""
    dims, dt = _shape(shape, what), _dtype(dtype)
    pattern = hostdtypes.fill_pattern(value, dt)
    t = _allocated(dims, dt, what)
    assert t._backend is not None and t._buf is not None
    if t.size:
        t._backend.fill(t._buf, pattern, t.size, current_stream())
    return t


def zeros(shape: ShapeLike, dtype: object) -> Tensor:
    return _full(shape, dtype, 0, "ct.zeros")


def ones(shape: ShapeLike, dtype: object) -> Tensor:
    return _full(shape, dtype, 1, "ct.ones")


def zeros_like(t: Tensor, dtype: object = None) -> Tensor:
    return _full(*_like(t, dtype, "ct.zeros_like"), 0, "ct.zeros_like")


def ones_like(t: Tensor, dtype: object = None) -> Tensor:
    return _full(*_like(t, dtype, "ct.ones_like"), 1, "ct.ones_like")


def empty_like(t: Tensor, dtype: object = None) -> Tensor:
    return _empty(*_like(t, dtype, "ct.empty_like"), "ct.empty_like")


def full_like(t: Tensor, value: float | bool, dtype: object = None) -> Tensor:
    return _full(*_like(t, dtype, "ct.full_like"), value, "ct.full_like")


def _like(t: object, dtype: object, what: str) -> tuple[tuple[int, ...], object]:
    """The shape and dtype of a `*_like` tensor: `t`'s (a cutile tensor, in use, or any array
    with a shape and a dtype cutile has), the dtype unless `dtype=` gives one."""
    site = caller_site()
    if isinstance(t, Tensor):
        if t._state is State.MOVED:  # the argument's text read from source only then
            check_usable(t, argument_label(site, 0, "the tensor"), argument_span(site, 0))
        return t._shape, t._dtype if dtype is None else dtype
    shape, own = getattr(t, "shape", None), as_dtype(getattr(t, "dtype", None))
    if shape is None or own is None:
        raise launch_error(_BAD_ARG, site, what=what, want="a tensor", got=_NotATensor(t))
    return tuple(shape), own if dtype is None else dtype


class _NotATensor:
    """How the error shows what `*_like` got instead of a tensor: its type, never its values."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return type(self.value).__name__


def arange(n: int, dtype: object = "i32") -> Tensor:
    """0, 1, ..., n-1 (like the kernel-side `ct.arange`, i32 unless `dtype` says)."""
    _raise(count_problem("ct.arange", n))
    dims, dt = _shape((int(n),), "ct.arange"), _dtype(dtype)
    values = _host_values("ct.arange", dims, dt, lambda: np.arange(dims[0]))
    return tensor_from_storage(backend(), hostdtypes.encode(values, dt), dt)


def _seed(seed: object, what: str) -> int | None:
    _raise(seed_problem(what, seed))
    return None if seed is None else int(seed)  # type: ignore[call-overload]


def rand(shape: ShapeLike, dtype: object, seed: int | None = None) -> Tensor:
    """Uniform in [0, 1)."""
    dims, seed = _shape(shape, "ct.rand"), _seed(seed, "ct.rand")
    dt = _float_dtype(dtype, "ct.rand")
    values = _host_values("ct.rand", dims, dt,
                          lambda: np.random.default_rng(seed).random(dims, dtype=np.float64))
    return tensor_from_storage(backend(), hostdtypes.encode(values, dt), dt)


def randn(shape: ShapeLike, dtype: object, seed: int | None = None) -> Tensor:
    """Standard normal."""
    dims, seed = _shape(shape, "ct.randn"), _seed(seed, "ct.randn")
    dt = _float_dtype(dtype, "ct.randn")
    values = _host_values("ct.randn", dims, dt,
                          lambda: np.random.default_rng(seed).standard_normal(dims))
    return tensor_from_storage(backend(), hostdtypes.encode(values, dt), dt)


def from_numpy(array: NDArray[Any], dtype: object = None) -> Tensor:
    """A copy of a NumPy array. `dtype=ct.bf16` (or another dtype) converts while copying."""
    arr = native(np.asarray(array))
    dt = _dtype(dtype) if dtype is not None else hostdtypes.from_numpy_dtype(arr.dtype)
    if dt is None:  # a NumPy dtype cutile has none for (complex, strings, objects)
        raise launch_error(_BAD_ARG, caller_site(), what="from_numpy", want=NUMBERS,
                           got=arr.dtype)
    return tensor_from_storage(backend(), to_storage(arr, dt, "from_numpy"), dt)


def meta(shape: ShapeLike, dtype: object) -> Tensor:
    """Shape and dtype only, no memory: for `kernel.compile(...)` ahead of time (so only the
    63-bit element count limits its shape)."""
    dims = _shape(shape, "ct.meta")
    return Tensor(None, None, 0, dims, contiguous_strides(dims), _dtype(dtype))


def from_dlpack(obj: Any) -> Tensor:
    """A cutile tensor on another library's memory (zero copy where the backend can use it)."""
    return Tensor(*import_dlpack(obj, backend(), caller_site()))
