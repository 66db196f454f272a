"""`ct.Tensor`: a handle to an n-d array in the backend's memory (or metadata only, `ct.meta`).

The class adds the host API's methods (compiler/hostapi declares them: runtime/hostimpl.py
checks every entry has its method here) to the handle's data (`TensorHandle`, handle.py). Each
method checks its effect on the handle (access.py), then delegates to its helper (views,
partitions, DLPack), which never imports this module.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..compiler.dsl.markers import _Marker
from ..compiler.dsl.orders import TileOrder, row_major
from ..compiler.dtypes import DType
from ..compiler.hostapi import HostEntry, lookup
from ..compiler.launch.regions import contiguous_strides
from ..diagnostics import messages as msg
from . import copying, dlpack, hostdtypes, limits, native, views
from .access import CONSUMER, enter
from .backends.base import Backend, Buffer, Device
from .copying import read_storage
from .handle import TensorHandle, byte_extent
from .layout import is_contiguous, resolve_shape
from .memo import Memo, exact_ints
from .ownership import State
from .partition import Partition, host_array, make_partition
from .sites import caller_site, caller_with_parent
from .streams import stream_of

__all__ = ["Tensor", "allocate", "byte_extent", "contiguous_strides", "read_storage",
           "tensor_from_storage"]


def _entry(name: str) -> HostEntry:
    entry = lookup("tensor", name)
    assert entry is not None, name
    return entry


_PARTITION, _RESHAPE, _NUMPY, _DLPACK, _FILL, _COPY = (_entry(n) for n in (
    "partition", "reshape", "numpy", "__dlpack__", "fill_", "copy_"))
_GETITEM, _NARROW, _SPLIT_AT, _PERMUTE, _VIEW = (_entry(n) for n in (
    "__getitem__", "narrow", "split_at", "permute", "view"))


class Tensor(TensorHandle):
    """A tensor handle. Element strides; memory owned by a Buffer (None for meta tensors).
    Its ownership record is its own (`Owned`'s slots)."""

    __slots__ = ()

    def __class_getitem__(cls, args: Any) -> _Marker:
        # `Tensor[f32, (-1,)]` in annotations evaluated at run time: the frontend's marker.
        return _Marker("Tensor", args)

    # -- metadata ------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        self._use()
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in elements."""
        self._use()
        return self._strides

    @property
    def dtype(self) -> DType:
        self._use()
        return self._dtype

    @property
    def device(self) -> Device | None:
        self._use()
        return self._buf.device if self._buf is not None else None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def is_meta(self) -> bool:
        return self._buf is None

    def is_contiguous(self) -> bool:
        return is_contiguous(self._shape, self._strides)

    @property
    def data_ptr(self) -> int:
        self._use()
        return self._buf.ptr + self._offset if self._buf is not None else 0

    def __repr__(self) -> str:
        if self._state is State.MOVED:
            return f"<cutile.Tensor moved {self._how}>"
        where = "meta" if self._buf is None else str(self._buf.device)
        return f"cutile.Tensor(shape={self._shape}, dtype={self._dtype}, device={where})"

    # -- operations ------------------------------------------------------------------------
    def partition(self, tile_shape: tuple[int, ...] | int, order: TileOrder = row_major,
                  blocks: int | None = None) -> Partition:
        """Moves this tensor into a Partition of `tile_shape` tiles (the argument for `Mut`)."""
        fast = native.partition_fast  # its usual call, compiled (None: not here, or declined)
        p: Partition | None = None if fast is None else fast(self, tile_shape, order, blocks)
        if p is not None:
            return p
        site = caller_with_parent()  # a helper that partitions, called twice: CT301 or CT306
        enter(self, _PARTITION, site)
        if self._buf is not None and self._buf.owner is not None:  # a DLPack import
            dlpack.check_write(self, "partitioned", site, refuse=msg.READ_ONLY_PARTITION)
        return make_partition(self, tile_shape, order, blocks, site)

    def reshape(self, shape: tuple[int, ...] | int, *dims: int) -> Tensor:
        """Moves this tensor into a new handle of another shape (a view when contiguous):
        `t.reshape((3, 4))` or `t.reshape(3, 4)`."""
        site = caller_site()
        enter(self, _RESHAPE, site)
        request = _shape_arg(shape, dims)
        key = (self._shape, self._strides, request) if exact_ints(request) else None
        layout = None if key is None else _reshapes.get(key)
        if layout is not None:  # this contiguous layout took this request before
            return self._moved_copy("by reshape()", site, *layout)
        new_shape = resolve_shape(request, self.size, self._shape, site)
        contiguous = self.is_contiguous()
        if contiguous or self._buf is None:
            strides = contiguous_strides(new_shape)
            if key is not None and contiguous:
                _reshapes.keep(key, (new_shape, strides))
            return self._moved_copy("by reshape()", site, new_shape, strides)
        copy = _compact(self)
        self._move("by reshape()", site)
        return Tensor(copy._backend, copy._buf, 0, new_shape, contiguous_strides(new_shape),
                      self._dtype)

    # -- views (views.py): new handles on the same memory; the tensor stays usable -------------
    def __getitem__(self, key: Any) -> Tensor:
        """`t[a:b, :, c]`: a view (ints drop their axis; slice steps must be positive)."""
        site = caller_site()
        enter(self, _GETITEM, site)
        return views.getitem(self, key, site)

    def narrow(self, axis: int, start: int, length: int) -> Tensor:
        """The view of `length` elements from `start` along `axis`."""
        site = caller_site()
        enter(self, _NARROW, site)
        return views.narrow(self, axis, start, length, site)

    def split_at(self, axis: int, k: int) -> tuple[Tensor, Tensor]:
        """Two disjoint views: elements [0, k) and [k, n) along `axis` (both may be Mut)."""
        site = caller_site()
        enter(self, _SPLIT_AT, site)
        return views.split_at(self, axis, k, site)

    def permute(self, *axes: int | tuple[int, ...]) -> Tensor:
        """A view with its axes reordered: `t.permute(1, 0)` or `t.permute((1, 0))`."""
        site = caller_site()
        enter(self, _PERMUTE, site)
        order = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return views.permute(self, tuple(order), site)  # type: ignore[arg-type]

    def view(self, shape: tuple[int, ...] | int, *dims: int) -> Tensor:
        """A view of another shape over the same elements (contiguous tensors only):
        `t.view((3, 4))` or `t.view(3, 4)`."""
        site = caller_site()
        enter(self, _VIEW, site)
        given = _shape_arg(shape, dims)
        return views.view(self, (given,) if not isinstance(given, tuple | list) else tuple(given),
                          site)

    def fill_(self, value: float | bool) -> Tensor:
        """Writes `value` into every element in place (a view: its elements only), enqueued on
        the current stream as `ct.full`'s fill; returns the tensor."""
        site = caller_site()
        enter(self, _FILL, site)
        pattern = hostdtypes.fill_pattern(value, self._dtype)
        dlpack.check_write(self, "filled", site)
        if self._backend is not None and self._buf is not None:
            self._backend.fill_strided(self._buf, self._offset, pattern, self._shape,
                                       self._strides, stream_of(self._backend))
        return self

    def copy_(self, src: Any) -> Tensor:
        """Writes `src` into every element in place (a view: its elements only), enqueued on
        the current stream as `fill_` is; returns the tensor. `src`: a NumPy array, a cutile
        tensor or a DLPack array of this shape (or broadcasting to it), converted as
        `ct.from_numpy(src, dtype=t.dtype)` converts."""
        site = caller_site()
        enter(self, _COPY, site)
        source = copying.source(src, self, site)
        dlpack.check_write(self, "written", site)
        if self._backend is not None and self._buf is not None:
            copying.write(self, source, site)
        return self

    def numpy(self) -> NDArray[Any]:
        """A host copy, waiting for pending work on the tensor. bf16/f8 come back as float32."""
        enter(self, _NUMPY, caller_site())
        return hostdtypes.decode(read_storage(self), self._dtype)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray[Any]:
        """`np.asarray(t)`, `np.array(t)`: what `numpy()` returns (always a copy, so
        `copy=False` is a ValueError, as NumPy 2 asks), converted to `dtype` if given."""
        return host_array(self.numpy, dtype, copy, "tensor", "t")

    def __dlpack__(self, *, stream: int | None = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        site = caller_site()
        enter(self, _DLPACK, site, CONSUMER)
        dlpack.check_exportable(self, site)
        return dlpack.export_tensor(_compact(self) if copy else self, stream)

    def __dlpack_device__(self) -> tuple[int, int]:
        if self._state is State.MOVED:  # CT301, naming `t` of `np.from_dlpack(t)` too
            enter(self, _DLPACK, caller_site(), CONSUMER)
        return self._buf.device.dlpack if self._buf is not None else (1, 0)


# (shape, strides, the shape asked for) of a contiguous tensor -> the shape and strides its
# reshape has: resolving and checking them again gives the same answer
_reshapes: Memo[tuple[tuple[int, ...], tuple[int, ...]]] = Memo()


def _shape_arg(shape: Any, dims: tuple[int, ...]) -> Any:
    """`reshape(3, 4)` as `reshape((3, 4))` (both forms, as NumPy and torch take them)."""
    return (shape, *dims) if dims else shape


def _compact(t: Tensor) -> Tensor:
    """A C-contiguous copy (through the host: only reshape of strided DLPack imports needs it)."""
    assert t._backend is not None
    return tensor_from_storage(t._backend, read_storage(t), t._dtype)


def allocate(be: Backend, what: str, dims: tuple[int, ...], dt: DType) -> Buffer:
    """`nbytes` of the backend's memory, or CT412 naming the size and the limit (`what`: the
    constructor the error names)."""
    nbytes = math.prod(dims) * dt.itemsize
    site = caller_site()
    limits.check_fits(what, dims, dt, nbytes, be.memory_limit(), site)
    stream = stream_of(be)
    return limits.allocating(what, dims, dt, nbytes, site,
                             lambda: be.allocate(max(1, nbytes), stream))


def tensor_from_storage(be: Backend, stored: NDArray[Any], dt: DType,
                        what: str = "ct.from_numpy") -> Tensor:
    """A new tensor holding a copy of storage values (already in `dt`'s host layout). A 0-d
    array stays 0-d (np.ascontiguousarray would make it 1-d)."""
    data = np.require(stored, requirements="C")
    dims = tuple(int(n) for n in data.shape)
    stream = stream_of(be)
    buf = allocate(be, what, dims, dt)
    if data.nbytes:
        be.write(buf, 0, data, stream)
    return Tensor(be, buf, 0, dims, contiguous_strides(dims), dt)
