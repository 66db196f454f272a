"""A stand-in for `cuda.bindings.driver` whose calls do nothing: the CUDA backend's own Python
(plans, checks, ownership, packing, `cuda/driver.py`'s wrappers, the handle objects) timed on a
machine without a GPU (`launch_overhead.py --backend cuda-null`).

Types and enums are the real bindings' (CUstream, CUresult, ...: building a handle object costs
what it costs on the GPU host); every `cu*` entry point the backend calls is a Python function
that returns success at once, except where the driver would refuse what it is given (a function
name the cubin has no entry of, a grid extent of 0). Device memory is a counter of addresses
(nothing is backed by memory: nothing reads it). Needs cuda-bindings installed (it does not
need libcuda: the bindings load the library on the first real driver call, which never happens).
"""

from __future__ import annotations

import itertools
import types
from typing import Any

from cutile.runtime.native import null_launch_address

ALIGN = 256


def null_binding() -> types.ModuleType:
    """A module with the real bindings' names, its entry points replaced by no-ops."""
    from cuda.bindings import driver as real

    mod = types.ModuleType("null_cuda_driver")
    for name in dir(real):
        if not name.startswith("cu"):  # types, enums, structs: the real ones
            setattr(mod, name, getattr(real, name))
    ok = real.CUresult.CUDA_SUCCESS
    done = (ok,)  # what a call without results returns (one tuple, as the bindings' does)
    handles = itertools.count(0x1000)
    addresses = itertools.count(0x7F00_0000_0000, 1 << 24)  # 16 MiB apart: any tensor fits
    attrs = real.CUdevice_attribute

    def nothing(*args: Any) -> tuple[Any]:
        return done

    def handle(*args: Any) -> tuple[Any, int]:
        return ok, next(handles)

    modules: dict[int, bytes] = {}

    def module_load(image: bytes) -> tuple[Any, int]:
        modules[h := next(handles)] = image
        return ok, h

    def module_function(module: Any, name: bytes) -> tuple[Any, int | None]:
        """NOT_FOUND for a name the cubin has no entry of, as the driver answers."""
        from cutile.compiler.toolchain.cubin_info import entry_names

        names = entry_names(modules.get(int(module), b""))
        if names is not None and name.decode() not in names:
            return real.CUresult.CUDA_ERROR_NOT_FOUND, None
        return ok, next(handles)

    def launch(fn: Any, gx: int, gy: int, gz: int, *rest: Any) -> tuple[Any]:
        """INVALID_VALUE for a grid extent of 0, as the driver answers."""
        return done if gx and gy and gz else (real.CUresult.CUDA_ERROR_INVALID_VALUE,)

    def launch_ex(config: Any, *rest: Any) -> tuple[Any]:
        return launch(None, config.gridDimX, config.gridDimY, config.gridDimZ)

    def attribute(attr: Any, dev: Any) -> tuple[Any, int]:
        cc = {attrs.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 9,
              attrs.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: 0}
        return ok, cc.get(attr, 0)

    # the compiled enqueue's launch function: one that does nothing, as `launch` above
    mod.native_launch_address = null_launch_address  # type: ignore[attr-defined]

    calls: dict[str, Any] = {
        "cuInit": nothing, "cuDeviceGetCount": lambda: (ok, 1), "cuDeviceGet": handle,
        "cuDevicePrimaryCtxRetain": handle, "cuCtxSetCurrent": nothing,
        "cuDeviceGetAttribute": attribute, "cuDeviceGetName": lambda n, dev: (ok, b"null"),
        "cuMemGetInfo": lambda: (ok, 80 << 30, 80 << 30),
        "cuMemAlloc": lambda nbytes: (ok, next(addresses)), "cuMemFree": nothing,
        "cuStreamCreate": handle, "cuStreamDestroy": nothing, "cuStreamSynchronize": nothing,
        "cuStreamWaitEvent": nothing, "cuEventCreate": handle, "cuEventDestroy": nothing,
        "cuEventRecord": nothing, "cuEventQuery": nothing, "cuEventSynchronize": nothing,
        "cuEventElapsedTime": lambda start, end: (ok, 1.0),  # (an autotuner's timing)
        "cuMemcpyHtoDAsync": nothing, "cuMemcpyDtoHAsync": nothing,
        "cuMemcpyDtoDAsync": nothing, "cuModuleLoadData": module_load, "cuModuleUnload": nothing,
        "cuModuleGetFunction": module_function, "cuLaunchKernel": launch,
        "cuLaunchKernelEx": launch_ex,
        "cuStreamBeginCapture": nothing, "cuStreamEndCapture": handle,
        "cuGraphInstantiate": handle, "cuGraphDestroy": nothing, "cuGraphLaunch": nothing,
        "cuGraphExecDestroy": nothing,
        **{f"cuMemsetD{w}Async": nothing for w in (8, 16, 32)},
        **{f"cuMemsetD2D{w}Async": nothing for w in (8, 16, 32)},
    }
    for name, fn in calls.items():
        setattr(mod, name, fn)
    return mod
