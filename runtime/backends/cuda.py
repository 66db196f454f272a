"""The CUDA backend: device memory from the caching allocator, copies, events and graphs on
streams of the device's primary context, and cubins launched with block (1, 1, 1)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import native
from ..cuda import driver
from ..cuda.allocator import CachingAllocator, RawOps
from .base import Backend, Buffer, Device, DoneEvent, Event, Executable, Graph, Statics, fill_runs
from .pack import Packer

_DEFAULT_STREAMS = frozenset({0, 1, 2})  # legacy (0 and CU_STREAM_LEGACY), per-thread

if TYPE_CHECKING:
    from ...compiler.specialization import Specialization
    from .base import KernelSource


class CudaEvent(Event):
    __slots__ = ("_handle", "_pool")

    def __init__(self, handle: int, pool: list[int]) -> None:
        self._handle = handle
        self._pool = pool

    def done(self) -> bool:
        return driver.event_query(self._handle)

    def wait(self) -> None:
        driver.event_synchronize(self._handle)

    def __del__(self) -> None:
        self._pool.append(self._handle)  # reused by a later record()


class CudaGraph(Graph):
    def __init__(self, exe: int, kept: list[NDArray[Any]]) -> None:
        self._exe: int | None = exe
        self._kept = kept  # host sources of captured copies: every replay reads them
        self._replay = driver.graph_launcher(exe)

    def replay(self, stream: int) -> None:
        assert self._exe is not None
        self._replay(stream)

    def close(self) -> None:
        if self._exe is not None:
            driver.graph_destroy(self._exe)
            self._exe = None
            self._kept = []


class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, ordinal: int = 0) -> None:
        self.device = Device("cuda", ordinal)
        self._ctx = driver.init_context(ordinal)
        self._local = threading.local()
        self._local.ctx = self._ctx
        self.arch = "sm_{}{}".format(*driver.compute_capability(ordinal))
        self._stream = driver.stream_create()
        self._capture: int | None = None  # made on the first capture of a default stream
        self._events: list[int] = []
        self._capturing = False
        self._kept: list[NDArray[Any]] = []  # host sources of the copies being captured
        self._functions: dict[str, int] = {}  # cubin digest -> CUfunction (module kept loaded)
        self.allocator = CachingAllocator(RawOps(
            alloc=driver.mem_alloc, free=driver.mem_free,
            record_event=self._raw_event, event_done=driver.event_query,
            destroy_event=driver.event_destroy, synchronize=self._sync_device))

    # -- context and streams ------------------------------------------------------------------
    def current(self) -> None:
        """Makes the context current in this thread (await runs launches in worker threads)."""
        if getattr(self._local, "ctx", None) != self._ctx:
            driver.set_current(self._ctx)
            self._local.ctx = self._ctx

    def default_stream(self) -> int:
        return self._stream

    def new_stream(self) -> int:
        self.current()
        return driver.stream_create()

    def _sync_device(self) -> None:
        driver.stream_synchronize(self._stream)
        driver.stream_synchronize(0)

    def _raw_event(self, stream: int) -> int:
        event = self._events.pop() if self._events else driver.event_create()
        driver.event_record(event, stream)
        return event

    # -- memory -----------------------------------------------------------------------------
    def memory_limit(self) -> tuple[int, str] | None:
        total: int | None = getattr(self, "_total_memory", None)
        if total is None:  # fixed for the device: asked once
            self.current()
            total = self._total_memory = driver.mem_info()[1]
        return total, "the device's memory"

    def allocate(self, nbytes: int, stream: int) -> Buffer:
        self.current()
        ptr, size = self.allocator.allocate(nbytes, stream)
        allocator = self.allocator

        def release(buf: Buffer) -> None:
            allocator.free(ptr, size, stream, buf.streams)

        buf = Buffer(self.device, ptr, nbytes, release=release)
        buf.streams.add(stream)  # launches on it then only test membership (free skips it)
        return buf

    def write(self, dst: Buffer, offset: int, data: NDArray[Any], stream: int) -> None:
        self.current()
        dst.streams.add(stream)  # the allocator's reuse waits for copies as for launches
        src = np.ascontiguousarray(data)
        if self._capturing:  # the graph's copy node reads this memory at every replay
            src = src.copy()  # the values at capture (the interpreter's graph keeps them too)
            self._kept.append(src)
        driver.memcpy_htod(dst.ptr + offset, int(src.ctypes.data), src.nbytes, stream)

    def read(self, src: Buffer, offset: int, nbytes: int, stream: int) -> NDArray[np.uint8]:
        self.current()
        out = np.empty(nbytes, dtype=np.uint8)
        if nbytes:
            driver.memcpy_dtoh(int(out.ctypes.data), src.ptr + offset, nbytes, stream)
        driver.stream_synchronize(stream)
        return out

    def fill(self, dst: Buffer, pattern: bytes, count: int, stream: int) -> None:
        self.current()
        dst.streams.add(stream)
        width = len(pattern)
        if width == 8 and pattern[:4] == pattern[4:]:
            pattern, width, count = pattern[:4], 4, count * 2
        if width in (1, 2, 4):
            driver.memset(dst.ptr, int.from_bytes(pattern, "little"), width, count, stream)
            return
        self.write(dst, 0, np.tile(np.frombuffer(pattern, dtype=np.uint8), count), stream)

    def fill_strided(self, dst: Buffer, offset: int, pattern: bytes, shape: tuple[int, ...],
                     strides: tuple[int, ...], stream: int) -> None:
        """2-D memsets of the element's 1-, 2- or 4-byte words (an 8-byte element as two words
        of 4), one per outer index (fill_runs): a contiguous region is one call."""
        self.current()
        dst.streams.add(stream)
        width = len(pattern)
        if width == 8 and pattern[:4] == pattern[4:]:  # two equal words: elements of one word
            shape, strides = (*shape, 2), (*(2 * s for s in strides), 1)
            pattern, width = pattern[:4], 4
        unit = width if width in (1, 2, 4) else 4
        runs = list(fill_runs(shape, strides, width, unit))
        for k in range(0, width, unit):
            word = int.from_bytes(pattern[k:k + unit], "little")
            for start, pitch, count, rows in runs:
                driver.memset2d(dst.ptr + offset + k + start, pitch, word, unit, count, rows,
                                stream)

    def copy(self, dst: Buffer, dst_offset: int, src: Buffer, src_offset: int, nbytes: int,
             stream: int) -> None:
        self.current()
        dst.streams.add(stream)
        src.streams.add(stream)
        driver.memcpy_dtod(dst.ptr + dst_offset, src.ptr + src_offset, nbytes, stream)

    # -- events, graphs ---------------------------------------------------------------------
    def record(self, stream: int) -> Event:
        if self._capturing:  # nothing runs during capture; the graph's own event tracks replays
            return DoneEvent()
        return CudaEvent(self._raw_event(stream), self._events)

    def synchronize(self, stream: int) -> None:
        self.current()
        driver.stream_synchronize(stream)

    def finish(self, stream: int) -> None:
        if not self._capturing:  # one driver call instead of an event record and its wait
            if not hasattr(self._local, "ctx"):  # current(), inlined: every synced launch
                self.current()
            driver.stream_synchronize(stream)

    def order_consumer(self, consumer_stream: int, streams: Iterable[int] = ()) -> None:
        """DLPack export: the consumer's stream waits for our work so far on every stream that
        used the buffer (the default stream when none did)."""
        self.current()
        for stream in set(streams) or {self._stream}:
            if stream == consumer_stream:
                continue  # stream order already holds
            event = self._raw_event(stream)
            driver.stream_wait_event(consumer_stream, event)
            self._events.append(event)

    def capture_stream(self, stream: int) -> int:
        """The driver cannot capture the legacy or per-thread default streams (handles 0, 1,
        2; torch's default stream is 0): capture on a private stream, replay on theirs."""
        if stream not in _DEFAULT_STREAMS:
            return stream
        if self._capture is None:
            self.current()
            self._capture = driver.stream_create()
        return self._capture

    def begin_capture(self, stream: int) -> None:
        self.current()
        driver.begin_capture(stream)
        self._capturing = True

    def end_capture(self, stream: int) -> Graph:
        self._capturing = False
        kept, self._kept = self._kept, []
        return CudaGraph(driver.end_capture(stream), kept)

    # -- kernels ----------------------------------------------------------------------------
    def prepare(self, kernel: KernelSource, spec: Specialization) -> Executable:
        from .cuda_kernels import load_kernel

        self.current()
        return load_kernel(self, kernel, spec)

    def executable(self, function: int, packer: Packer) -> CudaExecutable:
        """A loaded entry function and its parameter packer, launchable on this backend."""
        return CudaExecutable(self, function, packer)

    def function(self, digest: str, cubin: bytes, entry: str) -> int:
        """The entry function of a cubin, loaded once per distinct cubin and kept loaded."""
        fn = self._functions.get(digest)
        if fn is None:
            self.current()
            fn = driver.module_function(driver.module_load(cubin), entry)
            self._functions[digest] = fn
        return fn


class CudaExecutable(Executable):
    """A loaded kernel plus its parameter packer (built once per specialization, and once more
    per launch plan: `planned`, with the plan's shapes written into the block once).

    Each thread that launches it gets its own parameter buffer: cuLaunchKernel reads the packed
    values while the GIL may be released, so a shared buffer could be overwritten by another
    thread's launch (await enqueues from worker threads). The first thread takes the packer
    built with the executable; later threads build their own on their first launch, which is
    also when the backend's context is made current in that thread."""

    def __init__(self, backend: CudaBackend, function: int, packer: Packer,
                 launch: driver.Launch | None = None) -> None:
        self._backend = backend
        self._function = function
        self._packer = packer
        self._launch = launch or driver.launcher(function)
        self._threads = threading.local()  # .run: this thread's `Packer.runner`; .packer
        self._claim = threading.Lock()
        self._packer_taken = False
        compiled = native.launcher(packer, driver.native_launch_address(), function,
                                   self.enqueue, backend.current, driver.launch_failed)
        if compiled is not None:  # the compiled enqueue shadows the method, its fallback
            self.__dict__["enqueue"] = compiled

    def _planned(self, statics: Statics) -> CudaExecutable:
        """The same function and launcher, with a parameter block prebuilt for one plan."""
        return CudaExecutable(self._backend, self._function,
                              Packer(self._packer.slots, statics), self._launch)

    def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int) -> None:
        try:
            run = self._threads.run
        except AttributeError:
            run = self._enter_thread()
        run(args, grid, stream)

    def enqueue_dependent(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                          ) -> None:
        """A launch that may overlap the previous kernel on the stream (runtime/pdl.py)."""
        try:
            run = self._threads.dependent
        except AttributeError:
            run = self._dependent_runner()
        run(args, grid, stream)

    def _dependent_runner(self) -> Callable[[Sequence[Any], tuple[int, int, int], int], None]:
        """This thread's runner of dependent launches, sharing its packer with `enqueue`."""
        if not hasattr(self._threads, "run"):
            self._enter_thread()
        packer: Packer = self._threads.packer
        run = packer.runner(driver.dependent_launcher(self._function))
        self._threads.dependent = run
        return run

    def _enter_thread(self) -> Callable[[Sequence[Any], tuple[int, int, int], int], None]:
        """The first launch from this thread: the context current here, a packer of its own."""
        self._backend.current()
        with self._claim:
            packer = self._packer
            if self._packer_taken:
                packer = Packer(packer.slots, packer.statics)
            self._packer_taken = True
        run = packer.runner(self._launch)
        self._threads.packer = packer  # owns the memory `run` writes and the driver reads
        self._threads.run = run
        return run
