"""`ct.Tensor`: a handle to an n-d array in the backend's memory (or metadata only, `ct.meta`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..compiler.dsl.markers import _Marker
from ..compiler.dsl.orders import TileOrder, row_major
from ..compiler.dtypes import DType
from ..compiler.launch.regions import resolve_dims
from ..diagnostics import messages as msg
from . import hostdtypes, limits
from .backends.base import Backend, Buffer, Device
from .errors import launch_error
from .ownership import Owned, State, check_usable, check_writable
from .sites import Site, caller_site, caller_with_parent, receiver_name
from .streams import stream_of

if TYPE_CHECKING:
    from .partition import Partition
    from .views import Region



def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class Tensor(Owned):
    """A tensor handle. Element strides; memory owned by a Buffer (None for meta tensors).
    Its ownership record is its own (`Owned`'s slots)."""

    __slots__ = ("__weakref__", "_backend", "_base", "_buf", "_dtype", "_kid", "_offset",
                 "_region", "_shape", "_strides")

    def __init__(self, backend: Backend | None, buf: Buffer | None, offset: int,
                 shape: tuple[int, ...], strides: tuple[int, ...], dtype: DType,
                 region: Region | None = None) -> None:
        self._backend = backend
        self._buf = buf
        self._offset = offset  # bytes from buf.ptr
        self._shape = shape
        self._strides = strides
        self._dtype = dtype
        self._state = State.LIVE  # Owned.__init__, inlined
        self._how = ""
        self._site = None
        self._op = None
        self._leases = None
        # fixed for the handle's life, cached for launches: the address of element 0 (0 for a
        # meta tensor), and the launch descriptor's id (0 until a launch computes it)
        self._base = buf.ptr + offset if buf is not None else 0
        self._kid = 0
        # None until a view is taken of this memory: then the box it covers (views.py)
        self._region = region

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
        return _is_contiguous(self._shape, self._strides)

    @property
    def data_ptr(self) -> int:
        self._use()
        return self._buf.ptr + self._offset if self._buf is not None else 0

    def __repr__(self) -> str:
        if self._state is State.MOVED:
            return f"<cutile.Tensor moved {self._how}>"
        where = "meta" if self._buf is None else str(self._buf.device)
        return f"cutile.Tensor(shape={self._shape}, dtype={self._dtype}, device={where})"

    # -- ownership ------------------------------------------------------------------------
    def _use(self, site: Site | None = None) -> None:
        if self._state is State.MOVED:
            site = site or caller_site()
            check_usable(self, receiver_name(site, "the tensor"), site)

    def _moved_copy(self, how: str, site: Site, shape: tuple[int, ...] | None = None,
                    strides: tuple[int, ...] | None = None) -> Tensor:
        """A new handle on the same memory; this handle becomes moved."""
        region = self._region
        if region is not None and shape is not None and shape != self._shape:
            region = region.reshaped(len(shape))
        new = Tensor(self._backend, self._buf, self._offset, shape or self._shape,
                     strides or self._strides, self._dtype, region)
        self._move(how, site)
        return new

    def _handoff(self) -> Tensor:
        """A new handle on the same memory, exclusively leased (a launch takes it for an Acc
        parameter, as it takes a Mut partition); the launch moves this handle."""
        new = Tensor(self._backend, self._buf, self._offset, self._shape, self._strides,
                     self._dtype, self._region)  # a view stays in its family (its region)
        new._state, new._kid = State.EXCLUSIVE, self._kid
        return new

    # -- operations ------------------------------------------------------------------------
    def partition(self, tile_shape: tuple[int, ...] | int, order: TileOrder = row_major,
                  blocks: int | None = None) -> Partition:
        """Moves this tensor into a Partition of `tile_shape` tiles (the argument for `Mut`)."""
        from .partition import make_partition

        site = caller_with_parent()  # a helper that partitions, called twice: CT301 or CT306
        name = receiver_name(site, "the tensor")
        check_writable(self, name, "partitioned", site)
        if self._region is not None:
            from .views import check_region

            check_region(self._region, True, name, "partitioned", site)
        return make_partition(self, tile_shape, order, blocks, site)

    def reshape(self, shape: tuple[int, ...] | int) -> Tensor:
        """Moves this tensor into a new handle of another shape (a view when contiguous)."""
        site = caller_site()
        name = receiver_name(site, "the tensor")
        check_writable(self, name, "reshaped", site)
        if self._region is not None:
            from .views import check_region

            check_region(self._region, True, name, "reshaped", site)
        new_shape = _resolve_shape(shape, self.size, self._shape, site)
        if self.is_contiguous() or self._buf is None:
            return self._moved_copy("by reshape()", site, new_shape,
                                    contiguous_strides(new_shape))
        copy = _compact(self)
        self._move("by reshape()", site)
        return Tensor(copy._backend, copy._buf, 0, new_shape, contiguous_strides(new_shape),
                      self._dtype)

    # -- views (views.py): new handles on the same memory; the tensor stays usable -------------
    def __getitem__(self, key: Any) -> Tensor:
        """`t[a:b, :, c]`: a view (ints drop their axis; slice steps must be positive)."""
        from .views import getitem

        site = caller_site()
        self._use(site)
        return getitem(self, key, site)

    def narrow(self, axis: int, start: int, length: int) -> Tensor:
        """The view of `length` elements from `start` along `axis`."""
        from .views import narrow

        site = caller_site()
        self._use(site)
        return narrow(self, axis, start, length, site)

    def split_at(self, axis: int, k: int) -> tuple[Tensor, Tensor]:
        """Two disjoint views: elements [0, k) and [k, n) along `axis` (both may be Mut)."""
        from .views import split_at

        site = caller_site()
        self._use(site)
        return split_at(self, axis, k, site)

    def permute(self, *axes: int | tuple[int, ...]) -> Tensor:
        """A view with its axes reordered: `t.permute(1, 0)` or `t.permute((1, 0))`."""
        from .views import permute

        site = caller_site()
        self._use(site)
        order = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return permute(self, tuple(order), site)  # type: ignore[arg-type]

    def view(self, shape: tuple[int, ...] | int) -> Tensor:
        """A view of another shape over the same elements (contiguous tensors only)."""
        from .views import view

        site = caller_site()
        self._use(site)
        return view(self, (shape,) if isinstance(shape, int) else tuple(shape), site)

    def numpy(self) -> NDArray[Any]:
        """A host copy, waiting for pending work on the tensor. bf16/f8 come back as float32."""
        site = caller_site()
        self._use(site)
        if self._buf is None or self._backend is None:
            raise launch_error(msg.META_TENSOR_DATA, site, name=receiver_name(site, "the tensor"),
                               action="copied to the host")
        if self._region is not None:
            from .views import check_region

            check_region(self._region, False, receiver_name(site, "the tensor"),
                         "copied to the host", site)
        return hostdtypes.decode(read_storage(self), self._dtype)

    def __dlpack__(self, *, stream: int | None = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        from .dlpack import export_tensor

        site = caller_site()
        self._use(site)
        if self._region is not None:
            from .views import check_region

            check_region(self._region, False, receiver_name(site, "the tensor"), "exported",
                         site)
        return export_tensor(self, stream, copy, site)

    def __dlpack_device__(self) -> tuple[int, int]:
        self._use()
        return self._buf.device.dlpack if self._buf is not None else (1, 0)


def read_storage(t: Tensor) -> NDArray[Any]:
    """The tensor's storage values (bf16 as uint16 bits) as a new C-ordered host array."""
    assert t._buf is not None and t._backend is not None
    dt = hostdtypes.storage(t._dtype)
    lo, hi = byte_extent(t)
    stream = stream_of(t._backend)
    raw = t._backend.read(t._buf, t._offset + lo, hi - lo, stream)
    if t.size == 0:
        return np.empty(t._shape, dtype=dt)
    view: NDArray[Any] = np.ndarray(t._shape, dtype=dt, buffer=raw, offset=-lo,
                                    strides=tuple(s * dt.itemsize for s in t._strides))
    return np.array(view, dtype=dt, order="C")


def byte_extent(t: Tensor) -> tuple[int, int]:
    """Bytes [lo, hi) relative to the tensor's offset that its elements touch."""
    if any(n == 0 for n in t._shape):
        return 0, 0
    item = t._dtype.itemsize
    lo = sum(s * (n - 1) for s, n in zip(t._strides, t._shape, strict=True) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(t._strides, t._shape, strict=True) if s > 0)
    return lo * item, (hi + 1) * item


def _is_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    expect = contiguous_strides(shape)
    return all(n == 1 or s == e for n, s, e in zip(shape, strides, expect, strict=True))


def _resolve_shape(shape: tuple[int, ...] | int, size: int, old: tuple[int, ...],
                   site: Site) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int) else tuple(shape) if isinstance(
        shape, (tuple, list)) else (None,)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        raise launch_error(msg.BAD_CONSTRUCTOR_ARG, site, what="reshape",
                           want="a shape of ints (-1 for one inferred extent)", got=shape)
    dims = resolve_dims(dims, size)
    if any(d < 0 for d in dims) or math.prod(dims) != size:
        raise launch_error(msg.BAD_RESHAPE, site, a=old, na=size, b=tuple(shape) if not isinstance(
            shape, int) else (shape,), nb=math.prod(dims))
    return dims


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
