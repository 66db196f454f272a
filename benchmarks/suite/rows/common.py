"""What every row shares: the run context, plain function runners, and `run_case`, which builds,
checks, warms up and times the implementations of one shape and turns them into records."""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import SuiteConfig
from ..plan import Case
from ..records import Record
from ..timing import EventTimer, plan_window, rotating_sets

BW_GUESS = 4.3e12  # only to size windows before anything is measured
TF_GUESS = 7.9e14


class Skip(Exception):
    """This implementation does not run here; the message says why (recorded)."""


def short(exc: BaseException, limit: int = 300) -> str:
    text = f"{exc.__class__.__name__}: {exc}".replace("\n", " ").replace("|", "/")
    return text[:limit]


class Context:
    """The run's shared state: torch, the timing stream, peers' availability, the ceilings."""

    def __init__(self, cfg: SuiteConfig, root: Path, torch: Any,
                 log: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.root = root
        self.torch = torch
        self.log = log
        self.stream = torch.cuda.Stream()
        self.timer = EventTimer(torch, cfg)
        self.bw: float | None = None  # bytes/s
        self.tf: float | None = None  # FLOP/s
        self.sm_count = torch.cuda.get_device_properties(0).multi_processor_count
        self.triton: Any = None
        self.triton_reason = ""
        try:
            from ..peers import triton_kernels

            self.triton = triton_kernels
        except Exception as exc:
            self.triton_reason = f"Triton not importable ({short(exc, 120)})"
        self.ctp: Any = None
        self.ctp_reason = ""
        try:
            from ..peers import cutile_python_kernels

            self.ctp = cutile_python_kernels
        except Exception as exc:
            self.ctp_reason = f"cuTile Python not importable ({short(exc, 120)})"
        self.glue: Any = None
        self.cutile_reason = ""
        try:
            from ..peers.cutile_native import CutileGlue

            glue = CutileGlue(root)
            self.cutile_reason = glue.missing() or ""
            if not self.cutile_reason:
                glue.use_stream(int(self.stream.cuda_stream))
                self.glue = glue
        except Exception as exc:
            self.cutile_reason = f"cutile not usable ({short(exc, 200)})"

    def need_triton(self) -> Any:
        if self.triton is None:
            raise Skip(self.triton_reason)
        return self.triton

    def need_ctp(self) -> Any:
        if self.ctp is None:
            raise Skip(self.ctp_reason)
        return self.ctp

    def need_cutile(self) -> Any:
        if self.glue is None:
            raise Skip(self.cutile_reason)
        return self.glue

    def ctp_stream(self) -> Any:
        return self.torch.cuda.current_stream()


class FnRunner:
    """A peer launch as a function of the buffer set: `fn(i)` enqueues on the current stream and
    returns the output tensor (or None when it wrote `out_of(i)`)."""

    def __init__(self, impl: str, variant: str, fn: Callable[[int], Any], n_sets: int,
                 out_of: Callable[[int], Any] | None = None, launch_mode: str = "direct") -> None:
        self.impl = impl
        self.variant = variant
        self.fn = fn
        self.n_sets = n_sets
        self.out_of = out_of
        self.launch_mode = launch_mode
        self.blocking = False

    def check(self) -> Any:
        out = self.fn(0)
        return out if out is not None else self.out_of(0) if self.out_of else None

    def prepare(self) -> None:
        return None

    def enqueue(self, i: int) -> None:
        self.fn(i)

    def close(self) -> None:
        return None


@dataclass
class Impl:
    impl: str
    variant: str
    build: Callable[[], Any]  # -> runner (FnRunner, CutileRunner); may raise Skip


def estimate_s(case: Case) -> float:
    """A floor for one launch from the guessed ceilings (sizes windows before measuring)."""
    return max(case.bytes / BW_GUESS, case.flops / TF_GUESS, 2e-6)


def n_sets_for(ctx: Context, case: Case, set_bytes: int) -> int:
    return rotating_sets(set_bytes, ctx.cfg, case.memory_bound)


def rel_err(torch: Any, out: Any, ref: Any) -> float:
    """||out - ref|| / ||ref||; for tuples of outputs (a loss and a gradient), the worst part."""
    if isinstance(ref, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            return math.inf
        return max(rel_err(torch, o, r) for o, r in zip(out, ref, strict=True))
    o = out.detach().double()
    r = ref.detach().double()
    if not bool(torch.isfinite(o).all()):
        return math.inf
    return float((o - r).norm() / max(float(r.norm()), 1e-30))


def poison(out: Any) -> None:
    """Fills an output (or each of a tuple of outputs) with NaN before a checked call."""
    for t in out if isinstance(out, (tuple, list)) else (out,):
        t.fill_(float("nan"))


def _base(case: Case, impl: str, variant: str) -> Record:
    return Record(row=case.row, kernel=case.kernel, shape=case.shape, impl=impl,
                  variant=variant, dtype=case.dtype, params=dict(case.params),
                  metric_name=case.metric_name, bytes=case.bytes, flops=case.flops)


def run_case(ctx: Context, case: Case, impls: Sequence[Impl], reference: Any,
             tol: float) -> list[Record]:
    """Builds, checks (poisoned output, float32 reference), warms up and times every impl."""
    torch = ctx.torch
    records: list[Record] = []
    live: list[tuple[Any, Record]] = []
    # the inputs and the reference were made on the caller's stream; a build that reads one
    # (row 11's host scale, `float(sa)`) does so on ctx.stream, which does not wait for it
    torch.cuda.synchronize()
    with torch.cuda.stream(ctx.stream):
        for im in impls:
            rec = _base(case, im.impl, im.variant)
            records.append(rec)
            try:
                runner = im.build()
            except Skip as s:
                rec.status, rec.reason = "skipped", str(s)
                continue
            except Exception as exc:
                rec.status, rec.reason = "failed", "build: " + short(exc)
                ctx.log(traceback.format_exc(limit=3))
                continue
            try:
                times = []
                out = None
                for _ in range(2):
                    if getattr(runner, "out_of", None) is not None:
                        poison(runner.out_of(0))
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    out = runner.check()
                    torch.cuda.synchronize()
                    times.append(time.perf_counter() - t0)
                rec.compile_s = max(0.0, times[0] - times[1])
                rec.rel_err = rel_err(torch, out, reference)
                if not rec.rel_err <= tol:
                    rec.status, rec.reason = "wrong", f"rel err {rec.rel_err:.3g} > {tol:g}"
                    runner.close()
                    continue
                runner.prepare()
                rec.launch_mode = runner.launch_mode
            except Skip as s:
                rec.status, rec.reason = "skipped", str(s)
                continue
            except Exception as exc:
                rec.status, rec.reason = "failed", short(exc)
                ctx.log(traceback.format_exc(limit=4))
                continue
            live.append((runner, rec))
        if live:
            _time(ctx, case, live)
        for runner, _ in live:
            try:
                runner.close()
            except Exception as exc:
                ctx.log(f"close {runner.impl}: {short(exc)}")
    torch.cuda.synchronize()
    return records


def _time(ctx: Context, case: Case, live: list[tuple[Any, Record]]) -> None:
    cfg, timer = ctx.cfg, ctx.timer
    est = estimate_s(case)
    plans, hosts = {}, {}
    try:
        for runner, _ in live:
            timer.warm_up(runner, cfg.warmup_tiny if est < cfg.tiny_s else cfg.warmup)
            host, dev = timer.host_and_device(runner, max(3, min(runner.n_sets, 50)))
            hosts[id(runner)] = host
            plans[id(runner)] = plan_window(max(dev, 1e-7), case.bytes, len(live), cfg,
                                            case.memory_bound)
        timings = timer.measure([r for r, _ in live], plans, hosts)
    except Exception as exc:
        for _, rec in live:
            rec.status, rec.reason = "failed", "timing: " + short(exc)
        ctx.log(traceback.format_exc(limit=4))
        return
    work = case.work()
    for runner, rec in live:
        t = timings[id(runner)]
        p25, med, p75 = t.stats()
        rec.time_s, rec.time_s_p25, rec.time_s_p75 = med, p25, p75
        rec.windows, rec.launches_per_window = len(t.per_launch_s), t.launches
        rec.metric = work / med / 1e12
        rec.metric_p25, rec.metric_p75 = work / p75 / 1e12, work / p25 / 1e12
        ceiling = ctx.bw if case.memory_bound else ctx.tf and ctx.tf * case.tf_scale
        slack = 1.05 if case.memory_bound else 1.15
        if ceiling and rec.metric * 1e12 > slack * ceiling:
            rec.status = "suspect"
            rec.reason = (f"{rec.metric:.3g} {rec.metric_name} is above the ceiling: cached "
                          "inputs, or launches on another stream than the events")
