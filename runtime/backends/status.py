"""Status words: how a CUDA launch reports a loop step below 1 without stopping the device.

A kernel with a run-time range() step takes one more entry parameter, a pointer to an i64 that
stays 0 unless a block finds a step below 1; the block then runs that loop 0 times and writes
`(step << 32) | (check number + 1)` there (compiler/lower/loops.py). A trap would end the
kernel too, but it leaves the CUDA context unusable for the rest of the process; this way
the launch fails with CT411, with the interpreter's message and span, and the next launch
runs normally.

Only such kernels pay for it (`StatusExecutable`, chosen when the executable is made; other
kernels keep their executable and launch path): each launch takes a zeroed word from the
backend's pool, the launch returns a `StatusEvent` as its completion event, and whoever waits
for the launch (`.sync()`, `await`, a `.then` chain's end, a graph's `.sync()`: runtime/ops.py)
reads the word back through it. A word that held a failure is zeroed again, then returns to the
pool. A launch that is dropped without being waited for keeps its word (its kernel may still
write it).
Graph replays reuse the captured launch's word, so a failure in any replay is reported at the
graph's `.sync()`.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...diagnostics.errors import CutileError, error_for
from ..cuda import driver
from .base import Backend, Event, Executable, Statics

WORD = 8  # bytes per status word
CHUNK = 512  # words per device allocation of the pool


class StatusPool:
    """Zeroed status words in device memory, taken per launch and given back once read."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._free: list[int] = []
        self._grow = threading.Lock()
        self._stream: int | None = None  # private: reading a word waits for nothing else

    def take(self) -> int:
        try:
            return self._free.pop()
        except IndexError:
            with self._grow:
                if not self._free:
                    self._free.extend(self._chunk())
            return self._free.pop()

    def _chunk(self) -> list[int]:
        self._backend.current()
        base = driver.mem_alloc(CHUNK * WORD)  # kept for the process: words are reused
        stream = self.stream()
        driver.memset(base, 0, 4, CHUNK * WORD // 4, stream)
        driver.stream_synchronize(stream)
        return [base + i * WORD for i in range(CHUNK)]

    def stream(self) -> int:
        if self._stream is None:
            self._backend.current()
            self._stream = driver.stream_create()
        return self._stream

    def read(self, word: int) -> int:
        """The word's value (its launch is complete); a failure is zeroed for the next user."""
        self._backend.current()
        stream = self.stream()
        host = np.zeros(1, np.int64)
        driver.memcpy_dtoh(int(host.ctypes.data), word, WORD, stream)
        driver.stream_synchronize(stream)
        value = int(host[0])
        if value:
            driver.memset(word, 0, 4, WORD // 4, stream)
            driver.stream_synchronize(stream)
        return value

    def give_back(self, word: int) -> None:
        self._free.append(word)


_pools: weakref.WeakKeyDictionary[Backend, StatusPool] = weakref.WeakKeyDictionary()
_pools_lock = threading.Lock()


def pool_of(backend: Backend) -> StatusPool:
    pool = _pools.get(backend)
    if pool is None:
        with _pools_lock:
            pool = _pools.setdefault(backend, StatusPool(backend))
    return pool


class StatusEvent(Event):
    """A launch's completion with its status word: waiting for it raises the launch's CT411."""

    __slots__ = ("_checks", "_done", "_error", "_kernel", "_pool", "_word")

    def __init__(self, done: Event, pool: StatusPool, word: int, kernel: str,
                 checks: Sequence[Span]) -> None:
        self._done = done  # the launch's event (done at once while capturing a graph)
        self._pool = pool
        self._word: int | None = word
        self._kernel = kernel
        self._checks = checks  # the span of each range_check, by its number
        self._error: CutileError | None = None

    def done(self) -> bool:
        return self._done.done()

    def wait(self) -> None:
        self._done.wait()
        self.check()

    def check(self) -> None:
        """Reads the word once the launch (or every replay of its graph) is complete."""
        word, self._word = self._word, None
        if word is not None:
            value = self._pool.read(word)
            self._pool.give_back(word)
            if value:
                self._error = _failure(value, self._kernel, self._checks)
        if self._error is not None:
            raise self._error


def _failure(value: int, kernel: str, checks: Sequence[Span]) -> CutileError:
    number = (value & 0xFFFFFFFF) - 1
    step = value >> 32  # the word is signed: so is the step in its high half
    span = checks[number] if 0 <= number < len(checks) else checks[0]
    return error_for([msg.LOOP_STEP.at(span, step=step, kernel=kernel)])


class StatusExecutable(Executable):
    """An executable whose launches pass a status word as their last parameter."""

    def __init__(self, inner: Executable, backend: Backend, kernel: str,
                 checks: Sequence[Span]) -> None:
        self._inner = inner
        self._backend = backend
        self._pool = pool_of(backend)
        self._kernel = kernel
        self._checks = tuple(checks)

    def _planned(self, statics: Statics) -> StatusExecutable:
        inner = self._inner.planned(statics)
        if inner is self._inner:
            return self
        return StatusExecutable(inner, self._backend, self._kernel, self._checks)

    def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                ) -> StatusEvent:
        return self._enqueue(args, grid, stream, self._inner.enqueue)

    def enqueue_dependent(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int
                          ) -> StatusEvent:
        return self._enqueue(args, grid, stream, self._inner.enqueue_dependent)

    def _enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int,
                 launch: Callable[[Sequence[Any], tuple[int, int, int], int], object]
                 ) -> StatusEvent:
        word = self._pool.take()
        try:
            launch([*args, word], grid, stream)
        except BaseException:
            self._pool.give_back(word)  # never launched: still zero
            raise
        done = self._backend.record(stream)
        return StatusEvent(done, self._pool, word, self._kernel, self._checks)
