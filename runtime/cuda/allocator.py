"""A stream-ordered caching allocator for device memory.

A freed block goes back to the free list of the stream it was allocated on and can be handed out
again at once to work on that stream: stream order guarantees the earlier work has finished with
it. A block also used on other streams waits for an event on each of them before it is reused.
When the driver runs out of memory the cache is emptied (after a device synchronize) and the
allocation retried. The raw driver calls are injected, so this logic is tested without a GPU.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ...diagnostics.errors import DeviceError

SMALL = 1 << 20  # below: 512-byte granules; at and above: 2 MiB granules
SMALL_GRANULE = 512
LARGE_GRANULE = 2 << 20


def round_size(nbytes: int) -> int:
    granule = SMALL_GRANULE if nbytes < SMALL else LARGE_GRANULE
    return max(granule, -(-nbytes // granule) * granule)


@dataclass
class RawOps:
    alloc: Callable[[int], int]
    free: Callable[[int], None]
    record_event: Callable[[int], int]  # stream -> event recorded on it
    event_done: Callable[[int], bool]
    destroy_event: Callable[[int], None]
    synchronize: Callable[[], None]


@dataclass
class Stats:
    in_use: int = 0  # bytes handed out and not yet freed
    cached: int = 0  # bytes held for reuse
    peak: int = 0
    allocs: int = 0  # blocks obtained from the driver


@dataclass
class _Pending:
    ptr: int
    size: int
    stream: int
    events: list[int] = field(default_factory=list)


class CachingAllocator:
    def __init__(self, ops: RawOps) -> None:
        self._ops = ops
        self._free: dict[tuple[int, int], list[int]] = {}
        self._pending: list[_Pending] = []
        self._lock = threading.Lock()
        self.stats = Stats()

    def allocate(self, nbytes: int, stream: int) -> tuple[int, int]:
        """Returns (pointer, rounded size) usable by work on `stream`."""
        size = round_size(nbytes)
        with self._lock:
            self._collect_pending()
            cached = self._free.get((size, stream))
            if cached:
                ptr = cached.pop()
                self.stats.cached -= size
            else:
                ptr = self._fresh(size)
            self.stats.in_use += size
            self.stats.peak = max(self.stats.peak, self.stats.in_use)
            return ptr, size

    def free(self, ptr: int, size: int, stream: int, other_streams: Iterable[int] = ()) -> None:
        with self._lock:
            self.stats.in_use -= size
            self.stats.cached += size
            others = [s for s in other_streams if s != stream]
            if others:
                events = [self._ops.record_event(s) for s in others]
                self._pending.append(_Pending(ptr, size, stream, events))
            else:
                self._free.setdefault((size, stream), []).append(ptr)

    def empty_cache(self) -> None:
        """Gives every cached block back to the driver (waits for the device first)."""
        with self._lock:
            self._release_all()

    def _fresh(self, size: int) -> int:
        try:
            ptr = self._ops.alloc(size)
        except DeviceError:
            if not self.stats.cached:
                raise
            self._release_all()
            ptr = self._ops.alloc(size)
        self.stats.allocs += 1
        return ptr

    def _collect_pending(self) -> None:
        still: list[_Pending] = []
        for p in self._pending:
            if all(self._ops.event_done(e) for e in p.events):
                for e in p.events:
                    self._ops.destroy_event(e)
                self._free.setdefault((p.size, p.stream), []).append(p.ptr)
            else:
                still.append(p)
        self._pending = still

    def _release_all(self) -> None:
        self._ops.synchronize()
        self._collect_pending()
        for (size, _), ptrs in self._free.items():
            for ptr in ptrs:
                self._ops.free(ptr)
                self.stats.cached -= size
        self._free.clear()
