"""DLPack in both directions, with ctypes: `ct.from_dlpack(obj)` and `Tensor.__dlpack__`.

Imports ask for DLPack 1.x (`max_version=(1, 0)`, whose flags say when memory is read-only),
falling back to the legacy call for producers that do not take it. They are zero copy when the
producer's memory is where the active backend computes (host memory for the interpreter, the GPU
for CUDA); the producer's managed tensor is kept until the last cutile tensor on it is gone.
Otherwise the data is copied once, compacted (row-major, positive strides; a broadcast axis keeps
its stride 0). The buffer's `owner` is then an `Origin` saying so: writes to such a tensor warn
(CT413, they never reach the producer's memory), and writes to a read-only import are refused.
Exports hand out the tensor's memory (never a copy) in a legacy `dltensor` capsule, which every
consumer accepts.
"""

from __future__ import annotations

import ctypes
import warnings
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..compiler import dtypes as d
from ..compiler.dtypes import DType
from ..compiler.hostapi.shapes import no_dlpack
from ..compiler.launch.facts import type_name
from ..diagnostics import messages as msg
from .backends.base import CPU, DLPACK_CUDA, Backend, Buffer, Device
from .errors import launch_error
from .handle import TensorHandle
from .layout import byte_range, contiguous_strides
from .sites import Site, argument_label, argument_span, receiver_name
from .streams import stream_of

_BAD = msg.BAD_DLPACK
# 2**57 bytes: the widest virtual address space of a host (5-level paging) or a GPU; strides
# that reach past it are corrupt (CuPy exported the negative stride -32 of a float32 view as
# 2**62 - 32: the byte stride divided by the item size as unsigned numbers)
_ADDRESSABLE = 1 << 57

_CUDA_HOST, _CUDA_MANAGED = 3, 13


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _Deleter)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
    ("deleter", _VersionedDeleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY
_VERSIONED, _USED_VERSIONED = b"dltensor_versioned", b"used_dltensor_versioned"
_LEGACY_NAME, _USED = b"dltensor", b"used_dltensor"
_MAX_VERSION = (1, 0)

_CODES: dict[tuple[int, int], DType] = {
    (0, 8): d.I8, (0, 16): d.I16, (0, 32): d.I32, (0, 64): d.I64,
    (1, 8): d.U8, (1, 16): d.U16, (1, 32): d.U32, (1, 64): d.U64,
    (2, 16): d.F16, (2, 32): d.F32, (2, 64): d.F64, (4, 16): d.BF16,
    (6, 8): d.BOOL, (10, 8): d.F8E4M3, (12, 8): d.F8E5M2, (14, 8): d.F8E8M0,
}  # f4e2m1 has none: DLPack's (17, 4) is packed two per byte, cutile keeps one per byte
_TO_CODE: dict[str, tuple[int, int]] = {v.name: k for k, v in _CODES.items()}
_TO_CODE["tf32"] = (2, 32)  # tf32 is stored as float32

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_IsCapsule = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))

# -- export ------------------------------------------------------------------------------------
_exported: dict[int, tuple[DLManagedTensor, object, object, object]] = {}


def _delete_exported_py(managed: Any) -> None:
    _exported.pop(ctypes.addressof(managed.contents), None)


def _capsule_destructor_py(capsule: int) -> None:
    # Only a capsule nobody consumed still carries the name "dltensor"; then we free it.
    if _api.PyCapsule_IsValid(capsule, b"dltensor"):
        ptr = _GetPointerRaw(capsule, b"dltensor")
        if ptr:
            _exported.pop(ptr, None)


# C callbacks; module globals so they outlive every capsule.
_delete_exported = _Deleter(_delete_exported_py)
_capsule_destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor_py)


def check_exportable(t: TensorHandle, site: Site) -> None:
    """CT406 for a tensor DLPack cannot describe: a meta tensor, or f4e2m1 (kept unpacked)."""
    if t._buf is None:
        raise launch_error(_BAD, site, detail="a meta tensor has no memory to share")
    if t._dtype.name not in _TO_CODE:
        raise launch_error(_BAD, site, detail=f"{t._dtype.name} tensors are not exported: cutile "
                           "keeps one f4e2m1 value per byte, DLPack's float4_e2m1fn is packed "
                           "(cutile.runtime.floats.pack_f4e2m1 gives those bytes)")


def export_tensor(t: TensorHandle, stream: int | None) -> object:
    """A `dltensor` capsule of the tensor's memory (`check_exportable` passed)."""
    assert t._buf is not None
    _order_for_consumer(t, stream)
    ndim = len(t._shape)
    shape = (ctypes.c_int64 * max(ndim, 1))(*t._shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*t._strides)
    managed = DLManagedTensor()
    managed.dl_tensor.data = t._buf.ptr
    managed.dl_tensor.device = DLDevice(*t._buf.device.dlpack)
    managed.dl_tensor.ndim = ndim
    code, bits = _TO_CODE[t._dtype.name]
    managed.dl_tensor.dtype = DLDataType(code, bits, 1)
    managed.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.byte_offset = t._offset
    managed.deleter = _delete_exported
    addr = ctypes.addressof(managed)
    _exported[addr] = (managed, shape, strides, t._buf)  # the buffer lives while shared
    return _api.PyCapsule_New(addr, b"dltensor", ctypes.cast(_capsule_destructor,
                                                             ctypes.c_void_p))


# DLPack numbers CUDA streams its own way: 0 is forbidden, 1 is the legacy default stream, 2 the
# per-thread default stream, anything else a stream handle. The driver API takes 1 and 2 as
# handles of the same streams (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) and 0 as the legacy one.
_LEGACY = 1


def to_dlpack_stream(handle: int) -> int:
    """The DLPack number of a driver stream handle (the stream we ask a producer to order on)."""
    return _LEGACY if handle == 0 else handle


def from_dlpack_stream(stream: int | None) -> int:
    """The driver handle of the stream a DLPack consumer names (None: the legacy default)."""
    return _LEGACY if stream is None or stream == 0 else stream


def _order_for_consumer(t: TensorHandle, stream: int | None) -> None:
    """Makes the consumer's stream wait for our work on the tensor (CUDA only; -1: no wait)."""
    if t._buf is None or t._buf.device.kind != "cuda" or stream == -1:
        return
    from .backends.cuda import CudaBackend

    be = t._backend
    if isinstance(be, CudaBackend):
        be.order_consumer(from_dlpack_stream(stream), t._buf.streams)


# -- import ------------------------------------------------------------------------------------
class Origin:
    """An imported buffer's `owner`: what the producer was (for messages), whether its memory is
    read-only (DLPack 1.x's flag), and whether the backend copied it (then kernel writes reach
    the copy only)."""

    def __init__(self, source: str, readonly: bool, copied: bool) -> None:
        self.source = source
        self.readonly = readonly
        self.copied = copied


class _Imported(Origin):
    """Holds a consumed DLPack tensor (and its producer) and calls its deleter when dropped."""

    def __init__(self, addr: int, producer: object, versioned: bool, readonly: bool) -> None:
        super().__init__(type_name(producer), readonly, False)
        self.addr = addr
        self.producer = producer
        self.versioned = versioned

    def __del__(self) -> None:
        kind = DLManagedTensorVersioned if self.versioned else DLManagedTensor
        managed = kind.from_address(self.addr)
        if managed.deleter:
            managed.deleter(ctypes.pointer(managed))


def origin_of(t: TensorHandle) -> Origin | None:
    """How an imported tensor's memory came (None: cutile's own memory, or a meta tensor)."""
    owner = t._buf.owner if t._buf is not None else None
    return owner if isinstance(owner, Origin) else None


class CopiedImportWarning(UserWarning):
    """CT413: a write (Mut partition, Acc argument, fill_) to a DLPack import that the backend
    copied: the producer's memory never sees it."""


_warned: dict[Any, Any] = {}  # the warnings registry of CT413: once per line and text


def check_write(t: TensorHandle, action: str, site: Site, at: int | str | None = None,
                refuse: msg.Message = msg.READ_ONLY_WRITE) -> None:
    """A write about to reach an imported tensor's memory, by the call at `site` (on launch
    argument `at`, else on the receiver): `refuse` for read-only memory (the interpreter would
    write the producer's read-only pages), CT413 for a copy (the write would never reach the
    producer, on this backend only)."""
    origin = origin_of(t)
    if origin is None or not (origin.readonly or origin.copied):
        return
    name = (receiver_name(site, "the tensor") if at is None
            else argument_label(site, at, "the argument"))
    span = site.span() if at is None else argument_span(site, at)
    if origin.readonly:
        raise launch_error(refuse, span, name=name, source=origin.source, action=action)
    if origin.copied:
        assert t._backend is not None
        text = msg.COPIED_IMPORT_WRITE.format(name=name, source=origin.source, action=action,
                                             backend=t._backend.name)
        warnings.warn_explicit(f"{msg.COPIED_IMPORT_WRITE.code} {text}", CopiedImportWarning,
                               span.path, span.line, registry=_warned)


class Foreign(NamedTuple):
    """What an import gives `ct.from_dlpack` (constructors.py) to make its tensor from: the
    arguments of a handle, in order."""

    backend: Backend
    buf: Buffer
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: DType


def import_dlpack(obj: Any, be: Backend, site: Site) -> Foreign:
    """Another library's memory for a tensor of backend `be` (zero copy where the backend can
    use it): `ct.from_dlpack` (constructors.py) with the active backend."""
    if not hasattr(obj, "__dlpack__"):
        raise launch_error(_BAD, site, detail=no_dlpack(type(obj).__name__))
    dev_type, dev_id = (int(v) for v in obj.__dlpack_device__())
    on_gpu = dev_type in (DLPACK_CUDA, _CUDA_MANAGED)
    stream: int | None = None
    if on_gpu:
        stream = to_dlpack_stream(stream_of(be)) if be.device.kind == "cuda" else _LEGACY
    try:
        capsule = _request(obj, {"stream": stream} if on_gpu else {})
    except (BufferError, TypeError, ValueError, RuntimeError) as err:
        raise launch_error(_BAD, site, detail=str(err) + _hint(obj)) from None
    return _consume(capsule, obj, be, Device("cuda", dev_id) if on_gpu else CPU, site)


def _hint(obj: Any) -> str:
    """What to do instead, for the refusals we can tell apart (a big-endian NumPy array)."""
    dtype = getattr(obj, "dtype", None)
    if getattr(dtype, "isnative", True) is False:
        return (f" (its dtype {dtype} is big-endian; ct.from_numpy copies it with the bytes "
                "swapped to the host's order)")
    return ""


def _request(obj: Any, kwargs: dict[str, Any]) -> object:
    """A DLPack 1.x capsule where the producer makes one (read-only memory needs it); else the
    legacy one (a producer from before DLPack 1.0 refuses `max_version` with a TypeError)."""
    try:
        return obj.__dlpack__(max_version=_MAX_VERSION, **kwargs)
    except TypeError:
        return obj.__dlpack__(**kwargs)


def _consume(capsule: object, producer: object, be: Backend, device: Device,
             site: Site) -> Foreign:
    versioned = bool(_IsCapsule(capsule, _VERSIONED))
    addr = _api.PyCapsule_GetPointer(capsule, _VERSIONED if versioned else _LEGACY_NAME)
    # the capsule keeps the name's pointer, not a copy: module constants outlive it
    _api.PyCapsule_SetName(capsule, _USED_VERSIONED if versioned else _USED)
    if versioned:
        managed = DLManagedTensorVersioned.from_address(addr)
        keep = _Imported(addr, producer, True, bool(managed.flags & _READ_ONLY))
        if managed.major > _MAX_VERSION[0]:  # the version leads every layout: read it first
            raise launch_error(_BAD, site, detail=f"the producer sent DLPack {managed.major}."
                               f"{managed.minor}, newer than cutile reads (1.x)")
        dl = managed.dl_tensor
    else:
        keep = _Imported(addr, producer, False, False)
        dl = DLManagedTensor.from_address(addr).dl_tensor
    dtype = _CODES.get((dl.dtype.code, dl.dtype.bits))
    if dtype is None or dl.dtype.lanes != 1:
        raise launch_error(_BAD, site, detail=f"unsupported DLPack dtype (code {dl.dtype.code}, "
                           f"{dl.dtype.bits} bits, {dl.dtype.lanes} lanes)")
    shape = tuple(int(dl.shape[i]) for i in range(dl.ndim))
    strides = (tuple(int(dl.strides[i]) for i in range(dl.ndim)) if dl.strides else
               contiguous_strides(shape))
    base = (dl.data or 0) + int(dl.byte_offset)
    lo, hi = byte_range(shape, strides, dtype.itemsize)
    start, nbytes = base + lo, max(hi - lo, 0)
    if any(n < 0 for n in shape) or start < 0 or start + nbytes > _ADDRESSABLE:
        raise launch_error(_BAD, site, detail=f"the producer's shape {shape} and strides "
                           f"{strides} (in elements) reach memory no device can address; they "
                           "are not real (pass a contiguous copy of the array)")
    if device.kind == be.device.kind:
        buf = _wrap(device, start, nbytes, keep)
        return Foreign(be, buf, -lo, shape, strides, dtype)
    raw = _fetch(device, start, nbytes)
    return _copy_across(be, raw, -lo, shape, strides, dtype,
                        Origin(keep.source, keep.readonly, True))


def _wrap(device: Device, start: int, nbytes: int, keep: _Imported) -> Buffer:
    host = None
    if device.kind == "cpu":
        host = (np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(start)) if nbytes
                else np.empty(0, dtype=np.uint8))
    return Buffer(device, start, nbytes, host=host, owner=keep)


def _fetch(device: Device, start: int, nbytes: int) -> NDArray[np.uint8]:
    """The producer's bytes [start, start + nbytes), in host memory."""
    raw = np.empty(nbytes, dtype=np.uint8)
    if device.kind == "cpu" and nbytes:
        raw[:] = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(start))
    elif nbytes:
        from .cuda import driver

        driver.init_context(device.index)
        driver.memcpy_dtoh(int(raw.ctypes.data), start, nbytes, 0)
        driver.stream_synchronize(0)
    return raw


def _copy_across(be: Backend, raw: NDArray[np.uint8], offset: int, shape: tuple[int, ...],
                 strides: tuple[int, ...], dtype: DType, origin: Origin) -> Foreign:
    """Producer memory the backend cannot compute on, brought over once as a compact copy: the
    copy is made anyway, so it is row-major with positive strides (a negative one would be
    CT508 at every compiled launch); a broadcast axis (stride 0) stays one element, stride 0."""
    if all(n > 0 for n in shape):
        item = dtype.itemsize
        src = np.ndarray(shape, dtype=np.uint8 if item == 1 else f"V{item}", buffer=raw,
                         offset=offset, strides=tuple(s * item for s in strides))
        kept = tuple(0 if s == 0 else slice(None) for s in strides)
        raw = np.ascontiguousarray(src[(*kept, Ellipsis)]).reshape(-1).view(np.uint8)
        dense = contiguous_strides(tuple(n for n, s in zip(shape, strides, strict=True) if s))
        it = iter(dense)
        strides = tuple(0 if s == 0 else next(it) for s in strides)
    else:
        raw, strides = raw[:0], contiguous_strides(shape)
    stream = stream_of(be)
    buf = be.allocate(max(raw.size, 1), stream)
    buf.owner = origin
    if raw.size:
        be.write(buf, 0, raw, stream)
    return Foreign(be, buf, 0, shape, strides, dtype)
