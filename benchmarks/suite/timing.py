"""CUDA-event timing: warm-up, windows of a fixed launch count, interleaved implementations.

Every implementation is a `Runner` whose `enqueue(i)` launches on rotating buffer set `i` without
waiting. A window is `L` launches between two CUDA events; a sleep kernel queued first keeps the
GPU busy while the host enqueues, so a window measures back-to-back kernel time, not launch cost.
Implementations of one shape alternate window by window (A, B, A, B) so clock drift hits all.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .config import SuiteConfig


class Runner(Protocol):
    impl: str
    variant: str
    launch_mode: str
    n_sets: int
    blocking: bool  # enqueue waits for the GPU (then no sleep kernel ahead of the window)

    def enqueue(self, i: int) -> None: ...


@dataclass
class WindowPlan:
    launches: int  # per window
    windows: int


def plan_window(est_s: float, bytes_per_launch: int, n_runners: int, cfg: SuiteConfig,
                memory_bound: bool) -> WindowPlan:
    """Launches per window from an estimated launch time, inside the shape's time cap."""
    est_s = max(est_s, 1e-6)
    budget = cfg.shape_cap_s / max(1, n_runners) / cfg.windows
    launches = max(1, math.ceil(budget / est_s))
    if memory_bound and bytes_per_launch:
        launches = max(launches, math.ceil(cfg.window_bytes / bytes_per_launch))
    return WindowPlan(min(launches, cfg.max_launches), cfg.windows)


def rotating_sets(set_bytes: int, cfg: SuiteConfig, memory_bound: bool) -> int:
    """How many input sets to rotate through so that they span >= cfg.rotate_bytes (L2 is 50 MB)."""
    if not memory_bound or set_bytes <= 0:
        return 1
    return max(1, min(256, math.ceil(cfg.rotate_bytes / set_bytes)))


def quantiles(xs: Sequence[float]) -> tuple[float, float, float]:
    """(p25, median, p75)."""
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[1], q[2]


@dataclass
class Timing:
    per_launch_s: list[float] = field(default_factory=list)
    launches: int = 0

    def stats(self) -> tuple[float, float, float]:
        return quantiles(self.per_launch_s)


class EventTimer:
    """Times runners on one torch stream (the current one while timing)."""

    def __init__(self, torch: Any, cfg: SuiteConfig) -> None:
        self.torch = torch
        self.cfg = cfg
        self.cursor: dict[int, int] = {}
        self.can_sleep = hasattr(torch.cuda, "_sleep")
        self.clock_hz = 2.0e9  # cycles per second for the sleep kernel (H200 boost ~1.98 GHz)

    def _next(self, r: Runner) -> int:
        # modulo on read too: a runner of an earlier shape may have had this id and more sets
        n = max(1, r.n_sets)
        i = self.cursor.get(id(r), 0) % n
        self.cursor[id(r)] = (i + 1) % n
        return i

    def host_and_device(self, r: Runner, launches: int) -> tuple[float, float]:
        """(host seconds per enqueue, device seconds per launch) from one untimed-sleep window."""
        torch = self.torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.current_stream().synchronize()
        t0 = time.perf_counter()
        start.record()
        for _ in range(launches):
            r.enqueue(self._next(r))
        end.record()
        host = (time.perf_counter() - t0) / launches
        end.synchronize()
        return host, start.elapsed_time(end) * 1e-3 / launches

    def warm_up(self, r: Runner, count: int) -> None:
        for _ in range(count):
            r.enqueue(self._next(r))
        self.torch.cuda.current_stream().synchronize()

    def window(self, r: Runner, launches: int, host_s: float) -> float:
        """Seconds per launch over one window of back-to-back launches."""
        torch = self.torch
        if self.can_sleep and not getattr(r, "blocking", False):
            # keep the GPU busy while the host enqueues the window: 1.5x the host time + 50 us
            torch.cuda._sleep(int((1.5 * host_s * launches + 50e-6) * self.clock_hz))
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(launches):
            r.enqueue(self._next(r))
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) * 1e-3 / launches

    def measure(self, runners: Sequence[Runner], plans: dict[int, WindowPlan],
                hosts: dict[int, float]) -> dict[int, Timing]:
        """Interleaved windows; returns a Timing per runner (keyed by id)."""
        out = {id(r): Timing() for r in runners}
        windows = max(p.windows for p in plans.values()) if plans else 0
        for w in range(windows):
            order = list(runners) if w % 2 == 0 else list(reversed(runners))
            for r in order:
                p = plans[id(r)]
                if w < p.windows:
                    out[id(r)].per_launch_s.append(self.window(r, p.launches, hosts[id(r)]))
                    out[id(r)].launches = p.launches
        return out
