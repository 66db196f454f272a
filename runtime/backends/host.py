"""Host memory for the interpreter backend: NumPy byte arrays, synchronous copies and fills.

Everything here completes when it is called (stream 0 only), so events are always done. Graph
capture records every stream operation instead of running it (launches, fills, writes, copies:
what a CUDA capture puts in its graph); a replay runs them again, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...diagnostics.errors import CutileError
from ..limits import host_memory, refuse_if_unavailable
from .base import CPU, DONE, Backend, Buffer, Event, Executable, Graph

ALIGN = 256  # device allocations are 256-byte aligned; host ones match, so facts agree


def host_buffer(nbytes: int) -> Buffer:
    raw = np.empty(nbytes + ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGN
    view = raw[start:start + nbytes]
    return Buffer(CPU, int(view.ctypes.data), nbytes, host=view)


class HostGraph(Graph):
    def __init__(self, backend: HostMemoryBackend, thunks: list[Callable[[], object]]) -> None:
        self._backend = backend
        self._thunks = thunks

    def replay(self, stream: int) -> None:
        # one stream operation: a replay inside another capture is recorded whole, in place
        self._backend.run(self._run)

    def _run(self) -> None:
        for thunk in self._thunks:
            thunk()

    def close(self) -> None:
        self._thunks = []


class HostMemoryBackend(Backend):
    """Memory, copies and capture on the host; subclasses say how kernels run."""

    device = CPU

    def __init__(self) -> None:
        self._capture: list[Callable[[], object]] | None = None

    def default_stream(self) -> int:
        return 0

    def allocate(self, nbytes: int, stream: int) -> Buffer:
        refuse_if_unavailable(nbytes)
        return host_buffer(nbytes)

    def memory_limit(self) -> tuple[int, str] | None:
        total = host_memory()
        return None if total is None else (total, "the host's memory")

    def write(self, dst: Buffer, offset: int, data: NDArray[Any], stream: int) -> None:
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        if self._capture is not None:  # the values at capture, as the CUDA backend keeps them
            raw = raw.copy()
        self.run(partial(_write, dst, offset, raw))

    def read(self, src: Buffer, offset: int, nbytes: int, stream: int) -> NDArray[np.uint8]:
        return _bytes(src)[offset:offset + nbytes].copy()

    def fill(self, dst: Buffer, pattern: bytes, count: int, stream: int) -> None:
        self.run(partial(_fill, dst, pattern, count))

    def fill_strided(self, dst: Buffer, offset: int, pattern: bytes, shape: tuple[int, ...],
                     strides: tuple[int, ...], stream: int) -> None:
        if 0 not in shape:
            self.run(partial(_fill_strided, dst, offset, pattern, shape, strides))

    def copy(self, dst: Buffer, dst_offset: int, src: Buffer, src_offset: int, nbytes: int,
             stream: int) -> None:
        self.run(partial(_copy, dst, dst_offset, src, src_offset, nbytes))

    def record(self, stream: int) -> Event:
        return DONE

    def synchronize(self, stream: int) -> None:
        return None

    def begin_capture(self, stream: int) -> None:
        self._capture = []

    def end_capture(self, stream: int) -> Graph:
        thunks, self._capture = self._capture or [], None
        return HostGraph(self, thunks)

    def run(self, thunk: Callable[[], object]) -> None:
        """Runs a stream operation (a launch, a fill, a copy) now, or records it while a graph
        is being captured."""
        if self._capture is not None:
            self._capture.append(thunk)
        else:
            thunk()


def _write(dst: Buffer, offset: int, raw: NDArray[np.uint8]) -> None:
    _bytes(dst)[offset:offset + raw.size] = raw


def _fill(dst: Buffer, pattern: bytes, count: int) -> None:
    element = np.frombuffer(pattern, dtype=np.uint8)
    # broadcast into rows of one element each: no temporary as large as the buffer (np.tile
    # made one, doubling the memory a large ct.zeros needed)
    _bytes(dst)[:count * len(pattern)].reshape(count, len(pattern))[:] = element


def _fill_strided(dst: Buffer, offset: int, pattern: bytes, shape: tuple[int, ...],
                  strides: tuple[int, ...]) -> None:
    width = len(pattern)
    view: NDArray[np.uint8] = np.ndarray(
        (*shape, width), dtype=np.uint8, buffer=_bytes(dst), offset=offset,
        strides=(*(s * width for s in strides), 1))
    view[...] = np.frombuffer(pattern, dtype=np.uint8)  # in place, no copy of the tensor


def _copy(dst: Buffer, dst_offset: int, src: Buffer, src_offset: int, nbytes: int) -> None:
    _bytes(dst)[dst_offset:dst_offset + nbytes] = _bytes(src)[src_offset:src_offset + nbytes]


def _bytes(buf: Buffer) -> NDArray[np.uint8]:
    if buf.host is None:
        from ..errors import NO_DEVICE, device_error

        raise device_error(NO_DEVICE, detail=f"memory on {buf.device} is not readable by the "
                           "interpreter backend")
    return buf.host


class HostReport(Event):
    """What a status word is on the GPU (status.py), on the host: the failure a launch found
    while it ran (CT411), raised when the launch is waited for, and again at every later wait.
    Graph replays write the one captured report: the first failing replay's error is kept."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: CutileError | None = None

    def done(self) -> bool:
        return True

    def wait(self) -> None:
        if self.error is not None:
            raise self.error


class HostExecutable(Executable):
    """Runs a Python callable per launch (the interpreter's program, or a test's fake). The body
    may return a failure the GPU finds only when the launch completes (CT411): the launch's
    waiter raises it, through a HostReport. `reports`: whether the body can return one (a
    kernel with a run-time range() step); other launches make no report."""

    def __init__(self, backend: HostMemoryBackend,
                 body: Callable[[Sequence[Any], tuple[int, int, int]], CutileError | None],
                 reports: bool = False) -> None:
        self._backend = backend
        self._body = body
        self._reports = reports

    def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                ) -> HostReport | None:
        if not self._reports:
            self._backend.run(lambda: self._body(args, grid))
            return None
        report = HostReport()

        def run() -> None:
            report.error = report.error or self._body(args, grid)

        self._backend.run(run)
        return report
