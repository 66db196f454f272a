"""What a backend provides: memory, copies, events, launches and graph capture on one device.

Two implementations: the interpreter (host memory, kernels run by the NumPy interpreter) and CUDA
(device memory through the driver, cubins from tileiras). Tests add fakes. Work is always enqueued
on an explicit stream handle (an int; the interpreter has only stream 0).
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ...compiler.pdl import PdlFacts
    from ...compiler.specialization import Specialization
    from ...reader.source import ModuleInfo


class KernelSource(Protocol):
    """What a backend needs of a kernel to prepare one specialization: the parsed module it is
    defined in and its name (`runtime.kernel.Kernel` is one; backends do not import it, so
    they stay below the launch layer)."""

    @property
    def __name__(self) -> str: ...

    @property
    def qualname(self) -> str:
        """Its key in the module's parse (Python's __qualname__)."""
        ...

    def module(self) -> ModuleInfo: ...

DLPACK_CPU, DLPACK_CUDA = 1, 2


@dataclass(frozen=True)
class Device:
    kind: Literal["cpu", "cuda"]
    index: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"cuda:{self.index}"

    @property
    def dlpack(self) -> tuple[int, int]:
        return (DLPACK_CPU, 0) if self.kind == "cpu" else (DLPACK_CUDA, self.index)


CPU = Device("cpu")


class Buffer:
    """A block of memory that tensors view. It gives itself back (through `release`) when the
    last tensor viewing it is gone; foreign memory (DLPack) keeps its `owner` alive instead."""

    __slots__ = ("__weakref__", "_release", "device", "host", "nbytes", "owner", "ptr", "streams")

    def __init__(self, device: Device, ptr: int, nbytes: int, *,
                 host: NDArray[np.uint8] | None = None, owner: object = None,
                 release: Callable[[Buffer], None] | None = None) -> None:
        self.device = device
        self.ptr = ptr
        self.nbytes = nbytes
        self.host = host  # the bytes, for host memory
        self.owner = owner
        self.streams: set[int] = set()  # streams whose work used it (for safe reuse)
        self._release = release

    def __del__(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release(self)


class Event(ABC):
    @abstractmethod
    def done(self) -> bool: ...

    @abstractmethod
    def wait(self) -> None: ...


class DoneEvent(Event):
    """Work that ran synchronously (the interpreter) is complete when enqueued."""

    def done(self) -> bool:
        return True

    def wait(self) -> None:
        return None


DONE = DoneEvent()  # one is enough: it has no state


class Graph(ABC):
    """What a capture recorded: every operation enqueued on the capture stream between
    `begin_capture` and `end_capture` (launches, fills, writes, copies), which each replay
    runs again in that order. A write's host data is the values at capture."""

    @abstractmethod
    def replay(self, stream: int) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


# per tensor or partition parameter (by index): whether it is a partition, and the shape and
# strides (in elements) of its tensor, the same for every launch of one launch plan
Statics = Mapping[int, tuple[bool, tuple[int, ...], tuple[int, ...]]]


class Executable(ABC):
    """One specialization of one kernel, ready to enqueue (argument packing prepared once).
    `pdl`: for a `pdl=True` kernel, what it touches before its wait (runtime/pdl.py)."""

    pdl: PdlFacts | None = None

    def enqueue_dependent(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                          ) -> Event | None:
        """`enqueue`, allowed to start before the previous launch on the stream ends (CUDA's
        programmatic stream serialization); host backends run launches in order anyway."""
        return self.enqueue(args, grid, stream)

    def planned(self, statics: Statics) -> Executable:
        """This executable for the launches of one plan, whose handles all have the shapes in
        `statics` (a backend may prebuild what depends only on those: the CUDA backend's
        parameter block), with the same facts (`pdl`)."""
        exe = self._planned(statics)
        exe.pdl = self.pdl
        return exe

    def _planned(self, statics: Statics) -> Executable:
        """`planned`'s backend part. The default: itself."""
        return self

    @abstractmethod
    def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                ) -> Event | None:
        """Enqueues one launch. Returns None, or the event whose `wait()` completes the
        launch and raises what it reported (a status word: status.py): waiting for the
        launch must then go through that event."""


class NoBlocks(Executable):
    """A launch whose grid has no blocks (a partition of an empty tensor): nothing to enqueue,
    as on the interpreter (the driver refuses a grid extent of 0). Compiled all the same, so a
    kernel's errors do not depend on its grid."""

    def __init__(self, inner: Executable) -> None:
        self.pdl = inner.pdl

    def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int) -> None:
        return None


def for_grid(exe: Executable, grid: tuple[int, int, int]) -> Executable:
    return NoBlocks(exe) if 0 in grid else exe


class Backend(ABC):
    name: str
    device: Device

    @abstractmethod
    def default_stream(self) -> int: ...

    @abstractmethod
    def allocate(self, nbytes: int, stream: int) -> Buffer: ...

    def memory_limit(self) -> tuple[int, str] | None:
        """The most one allocation can get, in bytes, and what that is ("the host's memory");
        None when unknown. Larger requests are CT412 before anything is allocated."""
        return None

    @abstractmethod
    def write(self, dst: Buffer, offset: int, data: NDArray[Any], stream: int) -> None:
        """Copies a C-contiguous host array into `dst` at byte `offset` (stream-ordered)."""

    @abstractmethod
    def read(self, src: Buffer, offset: int, nbytes: int, stream: int) -> NDArray[np.uint8]:
        """Copies bytes out to a new host array, waiting for `stream`'s earlier work."""

    @abstractmethod
    def fill(self, dst: Buffer, pattern: bytes, count: int, stream: int) -> None:
        """Writes `count` copies of an element's bytes from the start of `dst`."""

    @abstractmethod
    def fill_strided(self, dst: Buffer, offset: int, pattern: bytes, shape: tuple[int, ...],
                     strides: tuple[int, ...], stream: int) -> None:
        """Writes an element's bytes into every element of a strided layout (a view): element
        0 at byte `offset` of `dst`, `strides` in elements; nothing else is touched."""

    @abstractmethod
    def copy(self, dst: Buffer, dst_offset: int, src: Buffer, src_offset: int, nbytes: int,
             stream: int) -> None: ...

    @abstractmethod
    def record(self, stream: int) -> Event: ...

    @abstractmethod
    def synchronize(self, stream: int) -> None: ...

    def finish(self, stream: int) -> None:
        """Waits for the work enqueued on `stream` so far (maybe more: work enqueued meanwhile
        from other threads), as cheaply as the backend can; no-op while capturing a graph."""
        event = self.record(stream)
        if event is not DONE:
            event.wait()

    @abstractmethod
    def prepare(self, kernel: KernelSource, spec: Specialization) -> Executable:
        """Compiles (or fetches from cache) what runs this specialization on this backend."""

    def capture_stream(self, stream: int) -> int:
        """The stream to capture work meant for `stream` on (the same one where it can be)."""
        return stream

    @abstractmethod
    def begin_capture(self, stream: int) -> None: ...

    @abstractmethod
    def end_capture(self, stream: int) -> Graph: ...


Run = tuple[int, int, int, int]  # (byte offset, pitch in bytes, words per row, rows)


def fill_runs(shape: tuple[int, ...], strides: tuple[int, ...], width: int,
              unit: int) -> Iterator[Run]:
    """A strided fill of `width`-byte elements as 2-D fills of `unit`-byte words (`unit`
    divides `width`; each word offset `k * unit` of the element gets these runs): rows of
    words `unit` apart, `pitch` bytes from one row to the next, one run per index of the axes
    left over. Fill order does not matter, so negative strides are walked the other way,
    broadcast axes (stride 0) once, and axes by decreasing step, merged where contiguous: a
    contiguous region is one run."""
    start, axes = 0, []
    for n, s in zip(shape, strides, strict=True):
        if n == 0:
            return
        step = s * width
        if step < 0:
            start += (n - 1) * step
            step = -step
        if n > 1 and step:
            axes.append((n, step))
    merged: list[tuple[int, int]] = []
    for n, step in sorted(axes, key=lambda axis: -axis[1]):
        if merged and merged[-1][1] == n * step:
            merged[-1] = (merged[-1][0] * n, step)
        else:
            merged.append((n, step))
    count = merged.pop()[0] if merged and merged[-1][1] == unit else 1
    rows, pitch = 1, unit
    if merged and merged[-1][1] >= count * unit:  # rows that do not overlap
        rows, pitch = merged.pop()
    for index in itertools.product(*(range(n) for n, _ in merged)):
        yield (start + sum(i * step for i, (_, step) in zip(index, merged, strict=True)),
               pitch, count, rows)
