"""Debounced, off-loop analysis with stale results dropped.

Every change of a document (or of the configuration) bumps that document's generation. A timer
fires `delay_s` after the last bump, takes a snapshot of the text, analyses it on a worker thread,
and publishes only if no bump happened meanwhile, so results never arrive out of order and an old
analysis never overwrites a newer one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Snapshot:
    uri: str
    path: str
    version: int | None
    source: str
    generation: int


class _Stale:
    pass


_STALE = _Stale()


class Scheduler(Generic[R]):
    def __init__(
        self,
        delay_s: float,
        snapshot: Callable[[str, int], Snapshot | None],
        analyze: Callable[[Snapshot], R],
        publish: Callable[[Snapshot, R], None],
        on_error: Callable[[Snapshot, BaseException], None],
    ) -> None:
        self.delay_s = delay_s
        self._snapshot = snapshot
        self._analyze = analyze
        self._publish = publish
        self._on_error = on_error
        self._generation: dict[str, int] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        # One worker: analyses of different files queue instead of fighting over the GIL.
        self._executor = concurrent.futures.ThreadPoolExecutor(1, "cutile-analysis")

    def schedule(self, uri: str, *, immediate: bool = False) -> None:
        """Analyse `uri` after the debounce delay (or at once), superseding pending work."""
        generation = self._bump(uri)
        loop = asyncio.get_running_loop()
        delay = 0.0 if immediate else self.delay_s
        self._timers[uri] = loop.call_later(delay, self._fire, uri, generation)

    def forget(self, uri: str) -> None:
        """Drop pending and in-flight work for a closed document."""
        self._bump(uri)
        self._generation.pop(uri, None)

    def is_current(self, snap: Snapshot) -> bool:
        return self._generation.get(snap.uri) == snap.generation

    def close(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _bump(self, uri: str) -> int:
        handle = self._timers.pop(uri, None)
        if handle is not None:
            handle.cancel()
        generation = self._generation.get(uri, 0) + 1
        self._generation[uri] = generation
        return generation

    def _fire(self, uri: str, generation: int) -> None:
        self._timers.pop(uri, None)
        if self._generation.get(uri) != generation:
            return
        snap = self._snapshot(uri, generation)
        if snap is None:
            return
        task = asyncio.ensure_future(self._run(snap))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, snap: Snapshot) -> None:
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(self._executor, self._guarded, snap)
        except Exception as error:
            self._on_error(snap, error)
            return
        if isinstance(result, _Stale) or not self.is_current(snap):
            return
        self._publish(snap, result)

    def _guarded(self, snap: Snapshot) -> R | _Stale:
        # Queued behind a long analysis and superseded meanwhile: skip the work.
        if not self.is_current(snap):
            return _STALE
        return self._analyze(snap)
