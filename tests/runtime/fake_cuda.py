"""A fake CUDA driver for CPU tests of the CUDA backend: device memory is host memory (so copies
are real), launches are recorded with the parameter values the driver would read."""

from __future__ import annotations

import contextlib
import ctypes
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from cutile.compiler.compile import Compiled, lower_kernel, specialization_key
from cutile.compiler.lower.abi import EntrySlot
from cutile.runtime.backends.pack import FORMATS

FAKE_MEMORY = 80 * 2**30  # what the fake device reports as its total memory
_P = ctypes.c_void_p
_U = ctypes.c_uint
# cuLaunchKernel's C signature: function, grid, block, shared memory, stream, params, extra
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, _P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P)


class DriverStatus(Exception):
    """Raised by a `launch` override: the driver's answer to that launch, a CUresult code.
    The Python launcher raises it as CT505, the compiled enqueue's launch function returns
    it."""

    def __init__(self, code: int) -> None:
        self.code = code


def decode_params(address: int, slots: tuple[EntrySlot, ...]) -> tuple[Any, ...]:
    """Reads a `void*[]` parameter array as cuLaunchKernel would, one value per slot."""
    pointers = (ctypes.c_void_p * len(slots)).from_address(address)
    out = []
    for ptr, slot in zip(pointers, slots, strict=True):
        code = FORMATS[slot.ctype]
        out.append(struct.unpack("<" + code, ctypes.string_at(ptr, struct.calcsize(code)))[0])
    return tuple(out)


@dataclass
class Launch:
    function: int
    grid: tuple[int, int, int]
    stream: int
    params: tuple[Any, ...]
    dependent: bool = False  # through `dependent_launcher` (programmatic dependent launch)


@dataclass
class FakeDriver:
    memory: dict[int, np.ndarray] = field(default_factory=dict)
    modules: list[bytes] = field(default_factory=list)
    functions: list[tuple[int, str]] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    slots: dict[int, tuple[EntrySlot, ...]] = field(default_factory=dict)  # by function
    compiled: list[Compiled] = field(default_factory=list)
    counter: int = 100
    _native: Any = None  # the C-callable launch function of native_launch_address

    def _handle(self) -> int:
        self.counter += 1
        return self.counter

    def mem_alloc(self, nbytes: int) -> int:
        block = np.zeros(nbytes + 256, np.uint8)
        ptr = int(block.ctypes.data)
        self.memory[ptr] = block
        return ptr

    def memset(self, dst: int, pattern: int, width: int, count: int, stream: int) -> None:
        data = np.full(count, pattern, {1: np.uint8, 2: np.uint16, 4: np.uint32}[width])
        ctypes.memmove(dst, int(data.ctypes.data), data.nbytes)

    def module_load(self, image: bytes) -> int:
        self.modules.append(image)
        return len(self.modules)

    def module_function(self, module: int, name: str) -> int:
        self.functions.append((module, name))
        return 1000 + len(self.functions)

    def launch(self, function: int, grid: tuple[int, int, int], stream: int,
               params: int) -> None:
        self.launches.append(Launch(function, grid, stream,
                                    decode_params(params, self.slots[function])))

    def launcher(self, function: int, dependent: bool = False) -> Any:
        from cutile.runtime.cuda import driver

        def launch(grid: tuple[int, int, int], stream: int, params: int) -> None:
            try:
                self.launch(function, grid, stream, params)
            except DriverStatus as status:
                driver.launch_failed(status.code)
            if dependent:
                self.launches[-1].dependent = True
        return launch

    def dependent_launcher(self, function: int) -> Any:
        return self.launcher(function, dependent=True)

    def native_launch_address(self) -> int:
        """cuLaunchKernel for the compiled enqueue (runtime/native.py): a C-callable function
        that records the launch as `launch` does, so the packing in C is checked too."""
        if self._native is None:
            def launch(function: int, gx: int, gy: int, gz: int, *rest: Any) -> int:
                stream, params = rest[-3] or 0, rest[-2]
                try:
                    self.launch(function, (gx, gy, gz), stream, params)
                except DriverStatus as status:
                    return status.code
                return 0

            self._native = LAUNCH(launch)  # kept alive with the driver
        address = ctypes.cast(self._native, ctypes.c_void_p).value
        assert address is not None
        return address

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from cutile.runtime.backends import cuda_kernels
        from cutile.runtime.cuda import driver

        fake = self
        calls: dict[str, Any] = {
            "init_context": lambda ordinal: 7, "set_current": lambda ctx: None,
            "compute_capability": lambda ordinal: (9, 0), "stream_create": self._handle,
            "stream_synchronize": lambda s: None, "event_create": self._handle,
            "event_record": lambda e, s: None, "event_query": lambda e: True,
            "event_synchronize": lambda e: None, "event_destroy": lambda e: None,
            "stream_wait_event": lambda s, e: None,
            "mem_alloc": self.mem_alloc, "mem_free": lambda p: self.memory.pop(p),
            "memcpy_htod": lambda dst, src, n, s: ctypes.memmove(dst, src, n),
            "memcpy_dtoh": lambda dst, src, n, s: ctypes.memmove(dst, src, n),
            "memcpy_dtod": lambda dst, src, n, s: ctypes.memmove(dst, src, n),
            "memset": self.memset, "module_load": self.module_load,
            "module_function": self.module_function,
            "launcher": self.launcher, "dependent_launcher": self.dependent_launcher,
            "native_launch_address": self.native_launch_address,
            "mem_info": lambda: (FAKE_MEMORY, FAKE_MEMORY),
        }
        for name, fn in calls.items():
            assert hasattr(driver, name), name
            monkeypatch.setattr(driver, name, fn)
        real_load = cuda_kernels.load_kernel

        def compile_for(backend: Any, kernel: Any, spec: Any) -> Compiled:
            # lowering without tileiras: the real entry ABI, a stand-in cubin
            info, name = kernel.module(), kernel.__name__
            lowered = lower_kernel(info, name, spec)
            key = specialization_key(info, name, spec)
            out = Compiled(name, backend.arch, b"", b"cubin:" + key.digest().encode(), "",
                           lowered.slots, key, "memory")
            fake.compiled.append(out)
            return out

        def load_kernel(backend: Any, kernel: Any, spec: Any) -> Any:
            exe = real_load(backend, kernel, spec)
            loaded = getattr(exe, "_inner", exe)  # a StatusExecutable wraps the loaded one
            fake.slots[loaded._function] = fake.compiled[-1].slots
            return exe

        monkeypatch.setattr(cuda_kernels, "compile_for", compile_for)
        monkeypatch.setattr(cuda_kernels, "load_kernel", load_kernel)


@contextlib.contextmanager
def fake_cuda_backend(drv: FakeDriver | None = None,
                      calls: tuple[str, ...] = ()) -> Iterator[FakeDriver]:
    """The CUDA backend of device 0 over a fake driver (device memory is host memory), current
    for the duration; yields the driver, to read what was launched. `calls`: more driver
    functions the fake (a subclass) stands in for."""
    from cutile.runtime import context
    from cutile.runtime.backends.cuda import CudaBackend
    from cutile.runtime.cuda import driver

    mp = pytest.MonkeyPatch()
    drv = drv or FakeDriver()
    drv.install(mp)
    for name in calls:
        mp.setattr(driver, name, getattr(drv, name))
    old = context.set_backend(CudaBackend(0))
    try:
        yield drv
    finally:
        context.set_backend(old)
        mp.undo()
