"""The only module that calls the CUDA driver (cuda.bindings.driver); everything returns ints.

It is imported lazily by the CUDA backend, so the interpreter path never loads libcuda. Only
long-standing driver entry points are used (they exist in every cuda-bindings 12.x/13.x).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from typing import Any

from cuda.bindings import driver as drv

from ...diagnostics import messages as msg
from ..errors import DRIVER_ERROR, NO_DEVICE, device_error, error

_SUCCESS = drv.CUresult.CUDA_SUCCESS
_REAL = drv.__name__
# Handle objects by value, built once: constructing them costs about a microsecond per call on
# the launch path (measured with benchmarks/driver_calls.py on the H200 host).
_functions: dict[int, Any] = {}
_streams: dict[int, Any] = {}
_events: dict[int, Any] = {}


def use_binding(module: Any) -> Any:
    """Replaces the module every call here goes through (cuda.bindings.driver) and returns the
    old one: a stand-in with the same entry points lets the benchmarks time the CUDA backend's
    own Python on a machine without a GPU (`launch_overhead.py --backend cuda-null`). Launchers
    made before keep the binding they were made with; the handle caches are emptied."""
    global drv
    old, drv = drv, module
    for cache in (_functions, _streams, _events):
        cache.clear()
    return old


def _handle(cache: dict[int, Any], kind: Any, value: int) -> Any:
    obj = cache.get(value)
    if obj is None:
        obj = cache[value] = kind(value)
    return obj


def _check(call: str, result: Any) -> Any:
    """Unpacks `(CUresult, *values)`; a failure becomes DeviceError CT505 naming the call."""
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise device_error(DRIVER_ERROR, call=call, error=getattr(err, "name", str(err)))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def device_count() -> int:
    """Devices visible to the driver; 0 when there is no driver or no GPU (never raises)."""
    try:
        if drv.cuInit(0)[0] != drv.CUresult.CUDA_SUCCESS:
            return 0
        err, count = drv.cuDeviceGetCount()
    except Exception:  # no libcuda at all: the pathfinder raises its own error type
        return 0
    return int(count) if err == drv.CUresult.CUDA_SUCCESS else 0


def init_context(ordinal: int) -> int:
    """Retains the device's primary context and makes it current; returns the context handle."""
    count = device_count()
    if ordinal >= count:
        detail = ("no CUDA device is available (no driver or no GPU)" if count == 0 else
                  f"device {ordinal} does not exist ({count} visible)")
        raise device_error(NO_DEVICE, detail=detail + "; use CUTILE_BACKEND=interpreter to run "
                           "on the CPU")
    dev = _check("cuDeviceGet", drv.cuDeviceGet(ordinal))
    ctx = _check("cuDevicePrimaryCtxRetain", drv.cuDevicePrimaryCtxRetain(dev))
    _check("cuCtxSetCurrent", drv.cuCtxSetCurrent(ctx))
    return int(ctx)


def set_current(ctx: int) -> None:
    _check("cuCtxSetCurrent", drv.cuCtxSetCurrent(drv.CUcontext(ctx)))


def compute_capability(ordinal: int) -> tuple[int, int]:
    dev = _check("cuDeviceGet", drv.cuDeviceGet(ordinal))
    attr = drv.CUdevice_attribute
    major = _check("cuDeviceGetAttribute", drv.cuDeviceGetAttribute(
        attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = _check("cuDeviceGetAttribute", drv.cuDeviceGetAttribute(
        attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return int(major), int(minor)


def mem_info() -> tuple[int, int]:
    free, total = _check("cuMemGetInfo", drv.cuMemGetInfo())
    return int(free), int(total)


def mem_alloc(nbytes: int) -> int:
    return int(_check("cuMemAlloc", drv.cuMemAlloc(nbytes)))


def mem_free(ptr: int) -> None:
    _check("cuMemFree", drv.cuMemFree(drv.CUdeviceptr(ptr)))


def stream_create() -> int:
    flags = drv.CUstream_flags.CU_STREAM_NON_BLOCKING
    return int(_check("cuStreamCreate", drv.cuStreamCreate(flags)))


def stream_destroy(stream: int) -> None:
    _streams.pop(stream, None)
    _check("cuStreamDestroy", drv.cuStreamDestroy(drv.CUstream(stream)))


def stream_synchronize(stream: int) -> None:
    err = drv.cuStreamSynchronize(_handle(_streams, drv.CUstream, stream))[0]
    if err is not _SUCCESS:
        _check("cuStreamSynchronize", (err,))


def stream_wait_event(stream: int, event: int) -> None:
    _check("cuStreamWaitEvent", drv.cuStreamWaitEvent(
        drv.CUstream(stream), drv.CUevent(event), 0))


def event_create() -> int:
    flags = drv.CUevent_flags.CU_EVENT_DISABLE_TIMING
    return int(_check("cuEventCreate", drv.cuEventCreate(flags)))


def event_destroy(event: int) -> None:
    _events.pop(event, None)
    _check("cuEventDestroy", drv.cuEventDestroy(drv.CUevent(event)))


def event_record(event: int, stream: int) -> None:
    err = drv.cuEventRecord(_handle(_events, drv.CUevent, event),
                            _handle(_streams, drv.CUstream, stream))[0]
    if err is not _SUCCESS:
        _check("cuEventRecord", (err,))


def event_query(event: int) -> bool:
    """True when the work before the event is done (NOT_READY is an answer, not an error)."""
    err = drv.cuEventQuery(_handle(_events, drv.CUevent, event))[0]
    if err == drv.CUresult.CUDA_ERROR_NOT_READY:
        return False
    _check("cuEventQuery", (err,))
    return True


def event_synchronize(event: int) -> None:
    err = drv.cuEventSynchronize(_handle(_events, drv.CUevent, event))[0]
    if err is not _SUCCESS:
        _check("cuEventSynchronize", (err,))


def timing_event_create() -> int:
    """An event that records a timestamp (the pooled events above do not: they record faster);
    for autotuning's timers."""
    flags = drv.CUevent_flags.CU_EVENT_DEFAULT
    return int(_check("cuEventCreate", drv.cuEventCreate(flags)))


def event_elapsed_ms(start: int, end: int) -> float:
    """Milliseconds between two completed timing events."""
    return float(_check("cuEventElapsedTime", drv.cuEventElapsedTime(
        _handle(_events, drv.CUevent, start), _handle(_events, drv.CUevent, end))))


def device_name(ordinal: int) -> str:
    dev = _check("cuDeviceGet", drv.cuDeviceGet(ordinal))
    raw = _check("cuDeviceGetName", drv.cuDeviceGetName(256, dev))
    return bytes(raw).split(b"\0", 1)[0].decode(errors="replace").strip()


def memcpy_htod(dst: int, src_addr: int, nbytes: int, stream: int) -> None:
    _check("cuMemcpyHtoDAsync", drv.cuMemcpyHtoDAsync(
        drv.CUdeviceptr(dst), src_addr, nbytes, drv.CUstream(stream)))


def memcpy_dtoh(dst_addr: int, src: int, nbytes: int, stream: int) -> None:
    _check("cuMemcpyDtoHAsync", drv.cuMemcpyDtoHAsync(
        dst_addr, drv.CUdeviceptr(src), nbytes, drv.CUstream(stream)))


def memcpy_dtod(dst: int, src: int, nbytes: int, stream: int) -> None:
    _check("cuMemcpyDtoDAsync", drv.cuMemcpyDtoDAsync(
        drv.CUdeviceptr(dst), drv.CUdeviceptr(src), nbytes, drv.CUstream(stream)))


def memset(dst: int, pattern: int, width: int, count: int, stream: int) -> None:
    """Fills `count` elements of 1, 2 or 4 bytes with `pattern` (its bit pattern)."""
    fn = {1: drv.cuMemsetD8Async, 2: drv.cuMemsetD16Async, 4: drv.cuMemsetD32Async}[width]
    _check(f"cuMemsetD{width * 8}Async", fn(drv.CUdeviceptr(dst), pattern, count,
                                            drv.CUstream(stream)))


def memset2d(dst: int, pitch: int, pattern: int, width: int, count: int, rows: int,
             stream: int) -> None:
    """Fills `rows` rows of `count` elements of 1, 2 or 4 bytes, `pitch` bytes apart."""
    fn = {1: drv.cuMemsetD2D8Async, 2: drv.cuMemsetD2D16Async, 4: drv.cuMemsetD2D32Async}[width]
    _check(f"cuMemsetD2D{width * 8}Async", fn(drv.CUdeviceptr(dst), pitch, pattern, count, rows,
                                              drv.CUstream(stream)))


def module_load(image: bytes) -> int:
    return int(_check("cuModuleLoadData", drv.cuModuleLoadData(image)))


def module_unload(module: int) -> None:
    _check("cuModuleUnload", drv.cuModuleUnload(drv.CUmodule(module)))


def module_function(module: int, name: str) -> int:
    return int(_check("cuModuleGetFunction", drv.cuModuleGetFunction(
        drv.CUmodule(module), name.encode())))


Launch = Callable[[tuple[int, int, int], int, int], None]
BINDING_ENV = "CUTILE_LAUNCH_BINDING"
BINDINGS = ("bindings", "ctypes")


def launch_binding() -> str:
    """Which binding calls cuLaunchKernel: `CUTILE_LAUNCH_BINDING=bindings` (cuda.bindings, the
    default) or `ctypes` (libcuda's symbol called through ctypes with prebuilt pointer objects
    and no argtypes: no per-argument conversion, measured 0.47 against 1.34 us per call with
    argtypes on a do-nothing symbol, this project's CPU box). On the H200 a chained launch took
    8.84 us through ctypes and 9.07 through bindings (the driver call dominates), so bindings
    stays the default."""
    choice = os.environ.get(BINDING_ENV, "").strip().lower() or BINDINGS[0]
    if choice not in BINDINGS:
        raise error(msg.BAD_LAUNCH_BINDING_ENV, None, value=choice)
    return choice


def launcher(function: int) -> Launch:
    """`launch(grid, stream, params_addr)` of one function, its handle built once (an executable
    keeps one, so a launch makes one Python call around cuLaunchKernel). Block (1, 1, 1): the
    driver reads a tile kernel's thread count from the cubin. The binding: `launch_binding()`."""
    if launch_binding() == "ctypes":
        return ctypes_launcher(function, _libcuda().cuLaunchKernel)
    fn = _handle(_functions, drv.CUfunction, function)
    launch_kernel, streams, success = drv.cuLaunchKernel, _streams, _SUCCESS

    def launch(grid: tuple[int, int, int], stream: int, params_addr: int) -> None:
        handle = streams.get(stream)
        if handle is None:
            handle = _handle(streams, drv.CUstream, stream)
        err = launch_kernel(fn, grid[0], grid[1], grid[2], 1, 1, 1, 0, handle, params_addr,
                            0)[0]
        if err is not success:
            _check("cuLaunchKernel", (err,))

    return launch


def dependent_launcher(function: int) -> Launch:
    """`launcher` for a launch that may start before the previous kernel on its stream ends
    (programmatic dependent launch, runtime/pdl.py): cuLaunchKernelEx with the
    programmatic-stream-serialization attribute. One config per (grid, stream), built once."""
    fn = _handle(_functions, drv.CUfunction, function)
    attr = drv.CUlaunchAttribute()
    attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attr.value.programmaticStreamSerializationAllowed = 1
    configs: dict[tuple[tuple[int, int, int], int], Any] = {}

    def launch(grid: tuple[int, int, int], stream: int, params_addr: int) -> None:
        config = configs.get((grid, stream))
        if config is None:
            config = configs[(grid, stream)] = _launch_config(grid, stream, attr)
        err = drv.cuLaunchKernelEx(config, fn, params_addr, 0)[0]
        if err is not _SUCCESS:
            _check("cuLaunchKernelEx", (err,))

    return launch


def _launch_config(grid: tuple[int, int, int], stream: int, attr: Any) -> Any:
    config = drv.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX = config.blockDimY = config.blockDimZ = 1  # the cubin gives the threads
    config.sharedMemBytes = 0
    config.hStream = _handle(_streams, drv.CUstream, stream)
    config.attrs = [attr]
    config.numAttrs = 1
    return config


def native_launch_address() -> int | None:
    """The address of cuLaunchKernel for the compiled enqueue (runtime/native.py), or None:
    libcuda's symbol under the real bindings, a stand-in's own `native_launch_address()`
    (benchmarks/null_driver.py), None under any other binding."""
    own = getattr(drv, "native_launch_address", None)
    if own is not None:
        address: int | None = own()
        return address
    if getattr(drv, "__name__", "") != _REAL:
        return None
    try:
        value = ctypes.cast(_libcuda().cuLaunchKernel, ctypes.c_void_p).value
    except OSError:  # no libcuda: nothing launches on this machine anyway
        return None
    return int(value) if value else None


def launch_failed(code: int) -> None:
    """Raises CT505 for a cuLaunchKernel that returned `code` (the compiled enqueue's)."""
    _check("cuLaunchKernel", (_result(code),))


def ctypes_launcher(function: int, call: Callable[..., int]) -> Launch:
    """`launcher` through ctypes: `call` is libcuda's cuLaunchKernel without argtypes, so every
    pointer goes in as a prebuilt `c_void_p` (one per function, stream and parameter array,
    cached by value) and the grid as plain ints (ctypes passes them as C ints: grid extents
    are below 2**31). The error check is the same CT505 as the bindings' path."""
    fn = ctypes.c_void_p(function)
    streams: dict[int, ctypes.c_void_p] = {}
    arrays: dict[int, ctypes.c_void_p] = {}

    def launch(grid: tuple[int, int, int], stream: int, params_addr: int) -> None:
        handle = streams.get(stream)
        if handle is None:
            handle = streams[stream] = ctypes.c_void_p(stream)
        params = arrays.get(params_addr)
        if params is None:
            params = arrays[params_addr] = ctypes.c_void_p(params_addr)
        err = call(fn, grid[0], grid[1], grid[2], 1, 1, 1, 0, handle, params, None)
        if err:
            launch_failed(err)

    return launch


def _result(code: int) -> Any:
    """A ctypes call's CUresult as the bindings' enum (its name goes in the error)."""
    try:
        return drv.CUresult(code)
    except ValueError:  # a code newer than these bindings: the number
        return code


_lib: list[ctypes.CDLL] = []


def _libcuda() -> ctypes.CDLL:
    """libcuda through ctypes, loaded once: the library cuda.bindings has loaded already (the
    same soname, so the same handle and the same contexts)."""
    if not _lib:
        _lib.append(ctypes.CDLL("libcuda.so.1"))
    return _lib[0]


def begin_capture(stream: int) -> None:
    # Relaxed: a chain's next op may compile, load a module or allocate while capturing.
    mode = drv.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
    _check("cuStreamBeginCapture", drv.cuStreamBeginCapture(drv.CUstream(stream), mode))


def end_capture(stream: int) -> int:
    """Ends capture and instantiates the graph; returns the executable graph."""
    graph = _check("cuStreamEndCapture", drv.cuStreamEndCapture(drv.CUstream(stream)))
    exe = _check("cuGraphInstantiate", drv.cuGraphInstantiate(graph, 0))
    _check("cuGraphDestroy", drv.cuGraphDestroy(graph))
    return int(exe)


def graph_launcher(exe: int) -> Callable[[int], None]:
    """`replay(stream)` of one executable graph, its handle built once and the stream's
    cached (as `launcher`'s): one driver call and one compare per replay."""
    handle = drv.CUgraphExec(exe)
    graph_launch, streams, success = drv.cuGraphLaunch, _streams, _SUCCESS

    def replay(stream: int) -> None:
        s = streams.get(stream)
        if s is None:
            s = _handle(streams, drv.CUstream, stream)
        err = graph_launch(handle, s)[0]
        if err is not success:
            _check("cuGraphLaunch", (err,))

    return replay


def graph_destroy(exe: int) -> None:
    _check("cuGraphExecDestroy", drv.cuGraphExecDestroy(drv.CUgraphExec(exe)))


def pointer_device(ptr: int) -> int:
    """The device ordinal that owns a device pointer (for DLPack imports)."""
    attr = drv.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
    return int(_check("cuPointerGetAttribute", drv.cuPointerGetAttribute(
        attr, drv.CUdeviceptr(ptr))))
