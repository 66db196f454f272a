"""Host values into existing tensors: `t.copy_(src)` (tensor.py) and the conversion it shares
with `ct.from_numpy` (constructors.py).

A source is a NumPy array (or anything `np.asarray` takes), a cutile tensor, or a DLPack array
(imported as `ct.from_dlpack` imports it). It is converted as `ct.from_numpy(src, dtype=t.dtype)`
converts and broadcast to the tensor's shape, then written in place: one device copy when the
source is a contiguous tensor of the same dtype and shape on the same backend, else host values
written run by run (a view's elements only: memory between them may belong to another view that
a pending launch writes). Like the rest of the handle's helpers it takes `TensorHandle`s and
never imports tensor.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..compiler.dtypes import DType
from ..diagnostics import messages as msg
from . import hostdtypes
from .dlpack import import_dlpack
from .errors import launch_error
from .handle import TensorHandle, byte_extent
from .layout import is_contiguous
from .ownership import State, check_usable
from .sites import Site, argument_label, argument_span, caller_site, receiver_name
from .streams import stream_of
from .views import region_conflict, region_error

NUMBERS = "an array of bool, int, uint or float dtype"  # what a host value must be


def read_storage(t: TensorHandle) -> NDArray[Any]:
    """The tensor's storage values (bf16 as uint16 bits) as a new C-ordered host array."""
    assert t._buf is not None and t._backend is not None
    dt = hostdtypes.storage(t._dtype)
    lo, hi = byte_extent(t)
    stream = stream_of(t._backend)
    raw = t._backend.read(t._buf, t._offset + lo, hi - lo, stream)
    if 0 in t._shape:
        return np.empty(t._shape, dtype=dt)
    view: NDArray[Any] = np.ndarray(t._shape, dtype=dt, buffer=raw, offset=-lo,
                                    strides=tuple(s * dt.itemsize for s in t._strides))
    return np.array(view, dtype=dt, order="C")


def native(arr: NDArray[Any]) -> NDArray[Any]:
    """Big-endian numbers ('>f4', from FITS or another machine's .npy) in the host's order:
    the copy is made anyway, so the bytes are swapped in it."""
    if arr.dtype.kind in "biuf" and not arr.dtype.isnative:
        return arr.astype(arr.dtype.newbyteorder("="))
    return arr


def to_storage(arr: NDArray[Any], dt: DType, call: str | CopyCall) -> NDArray[Any]:
    """NumPy values as storage values of `dt` (`call` names the conversion in errors): CT406
    for values that are no numbers, or that an integer dtype cannot hold (NumPy's cast would
    wrap them or make NaN garbage)."""
    check_numbers(arr, call)
    if dt.is_integer and arr.size and arr.dtype.kind in "fiu":
        _check_int_range(arr, dt, call)
    return hostdtypes.encode(arr, dt)


def check_numbers(arr: NDArray[Any], call: str | CopyCall) -> None:
    """CT406 for strings, objects, complex values: NumPy's cast would fail inside it."""
    if arr.dtype.kind not in "biuf":
        raise launch_error(msg.BAD_CONSTRUCTOR_ARG, caller_site(), what=call, want=NUMBERS,
                           got=arr.dtype)


def _check_int_range(arr: NDArray[Any], dt: DType, call: str | CopyCall) -> None:
    info = np.iinfo(hostdtypes.storage(dt))  # type: ignore[type-var]
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad: str | None = "NaN or infinite values"
    else:
        lo, hi = arr.min(), arr.max()
        bad = None if info.min <= lo and hi <= info.max else f"values from {lo} to {hi}"
    if bad is not None:
        raise launch_error(msg.FROM_NUMPY_RANGE, caller_site(), call=call, what=bad,
                           dtype=dt.name, lo=info.min, hi=info.max)


# -- t.copy_(src) -------------------------------------------------------------------------------
class Source(NamedTuple):
    """What `copy_` writes: a handle to copy on the device, or storage values in the tensor's
    shape; `imported`: the handle is a DLPack import that lives only as long as this call."""

    handle: TensorHandle | None
    stored: NDArray[Any] | None
    imported: bool = False


class CopyCall:
    """`t.copy_` as the user's call names its receiver, for error messages: the name is read
    from the call's source text when a message is formatted, not on every copy."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def __str__(self) -> str:
        return f"{receiver_name(self.site, 't')}.copy_"


def source(src: Any, t: TensorHandle, site: Site) -> Source:
    """`src` checked and converted for `t.copy_(src)`: CT301/CT307 for a tensor that cannot be
    read now (as `src.numpy()`), CT406 for what is not an array of numbers or does not
    broadcast to the tensor's shape, or values the dtype cannot hold."""
    call = CopyCall(site)
    if isinstance(src, TensorHandle):
        _check_readable(src, site)
        return _from_handle(src, t, call, False)
    host = isinstance(src, np.ndarray | np.generic | list | tuple | int | float | bool)
    if not host and hasattr(src, "__dlpack__"):
        assert t._backend is not None  # a meta tensor was refused first
        return _from_handle(TensorHandle(*import_dlpack(src, t._backend, site)), t, call, True)
    try:
        arr = native(np.asarray(src))
    except (TypeError, ValueError):  # a ragged list, an object NumPy cannot read
        arr = np.empty(0, dtype=object)
    if arr.dtype.kind == "O":  # its dtype would say nothing: name what was given
        raise launch_error(msg.BAD_CONSTRUCTOR_ARG, site, what=call, want=NUMBERS, got=type(src))
    return Source(None, _fit(arr, t, call, same=False))


def _check_readable(src: TensorHandle, site: Site) -> None:
    """What reading `src` checks (`src.numpy()`), at the argument, as the checker reports a
    moved argument."""
    if src._state is State.MOVED:
        at = _source_at(site)
        check_usable(src, argument_label(site, at, "the source"), argument_span(site, at))
    if src._buf is None:
        at = _source_at(site)
        raise launch_error(msg.META_TENSOR_DATA, argument_span(site, at),
                           name=argument_label(site, at, "the source"), action="copied from")
    conflict = region_conflict(src._region, False) if src._region is not None else None
    if conflict is not None:
        at = _source_at(site)
        raise region_error(conflict, argument_label(site, at, "the source"), "copied from",
                           argument_span(site, at))


def _source_at(site: Site) -> int | str:
    """Where the call passes the source (read from its text: on the error path only)."""
    call = site.call()
    return 0 if call is None or call.args else "src"


def _from_handle(h: TensorHandle, t: TensorHandle, call: CopyCall, imported: bool
                 ) -> Source:
    same = h._dtype.name == t._dtype.name
    if same and h._shape == t._shape and _device_copy(h, t):
        return Source(h, None, imported)
    stored = read_storage(h)  # waits for the work enqueued on it
    return Source(None, _fit(stored if same else hostdtypes.decode(stored, h._dtype), t, call,
                             same))


def _device_copy(h: TensorHandle, t: TensorHandle) -> bool:
    """Whether one stream-ordered device copy does it: both contiguous on one backend, and
    not overlapping (a copy between overlapping bytes is undefined)."""
    if h._backend is not t._backend or h._buf is None or t._buf is None:
        return False
    if not (is_contiguous(h._shape, h._strides) and is_contiguous(t._shape, t._strides)):
        return False
    size = t._dtype.itemsize * int(np.prod(t._shape))
    a, b = h._buf.ptr + h._offset, t._buf.ptr + t._offset
    return a + size <= b or b + size <= a


def _fit(values: NDArray[Any], t: TensorHandle, call: CopyCall, same: bool
         ) -> NDArray[Any]:
    """Storage values of `t`'s dtype in `t`'s shape (NumPy broadcasting)."""
    if not same:
        check_numbers(values, call)
    try:
        shape = np.broadcast_shapes(values.shape, t._shape)
    except ValueError:
        shape = None
    if shape != t._shape:
        raise launch_error(msg.COPY_SHAPE, caller_site(), call=call, src=values.shape,
                           dst=t._shape)
    stored = values if same else to_storage(values, t._dtype, call)
    return np.broadcast_to(stored, t._shape)


def write(t: TensorHandle, src: Source, site: Site) -> None:
    """Enqueues the copy of `src` into `t`'s elements on the current stream."""
    be, buf = t._backend, t._buf
    assert be is not None and buf is not None
    if any(s == 0 and n > 1 for s, n in zip(t._strides, t._shape, strict=True)):
        raise launch_error(msg.COPY_INTO_BROADCAST, site, name=receiver_name(site, "the tensor"),
                           strides=t._strides, shape=t._shape)
    stream = stream_of(be)
    h = src.handle
    if h is not None:
        lo, hi = byte_extent(t)
        assert h._buf is not None
        if hi > lo:
            be.copy(buf, t._offset + lo, h._buf, h._offset + lo, hi - lo, stream)
            if src.imported:  # the producer may free its memory once this call returns
                be.finish(stream)
        return
    assert src.stored is not None
    data = np.ascontiguousarray(src.stored)
    for offset, run in _runs(t._shape, t._strides, t._dtype.itemsize, data):
        be.write(buf, t._offset + offset, run, stream)


def _runs(shape: tuple[int, ...], strides: tuple[int, ...], item: int, data: NDArray[Any]
          ) -> list[tuple[int, NDArray[Any]]]:
    """(byte offset, values) per contiguous run of a layout: one for a contiguous tensor, one
    per row of a column slice; the trailing axes that are row-major make one run."""
    if 0 in shape:
        return []
    k, expect = len(shape), 1
    while k and (shape[k - 1] == 1 or strides[k - 1] == expect):
        expect *= shape[k - 1]
        k -= 1
    return [(sum(i * s for i, s in zip(index, strides, strict=False)) * item, data[index])
            for index in np.ndindex(*shape[:k])]
