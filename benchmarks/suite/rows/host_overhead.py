"""Row 8: host overhead. A tiny add (4096 f32) launched many times (us per launch, the host's
cost to enqueue one kernel, measured by wall clock over the whole loop); a graph of 100 such
launches replayed (us per kernel, CUDA events); and compile times (cold, memory hit, disk hit)
from fresh processes.

cutile's launches are lazy: the loop is one `.then` chain of launches synced once ("async"), as a
program that does not wait between kernels would write it; "sync" waits on every launch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from ..plan import Case
from ..records import Record
from ..timing import quantiles
from .common import Context, Skip, short

REPEATS = 5  # whole loops timed; median and p25/p75 over them
TINY_TILE = 1024
CHAIN = 250  # launches per .then chain (one sync per chain)


def variants(case: Case) -> list[tuple[str, str]]:
    if "graph" in case.shape:
        return [(i, "graph") for i in ("cutile", "torch", "triton", "cuda.tile")]
    if case.shape == "compile":
        return [("cutile", v) for v in ("cold add", "warm add", "disk hit add", "cold gemm")]
    return [("cutile", "async"), ("cutile", "sync"), ("torch", "async"), ("torch", "sync"),
            ("triton", "async"), ("cuda.tile", "async")]


def _rec(case: Case, impl: str, variant: str) -> Record:
    return Record(case.row, case.kernel, case.shape, impl, variant, case.dtype,
                  dict(case.params), metric_name=case.metric_name)


def tiny(ctx: Context, n: int) -> tuple[Any, Any, Any]:
    torch = ctx.torch
    g = torch.Generator(device="cuda").manual_seed(2)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    return x, y, torch.empty_like(x)


def cutile_tiny(ctx: Context, x: Any, y: Any, z: Any) -> tuple[Any, Any]:
    """(kernel, first op) for the tiny add on x, y -> z."""
    glue = ctx.need_cutile()
    from ..tuning import Variant

    kernel = glue.kernel("add")
    v = Variant("tile", "add", (TINY_TILE,))
    return kernel, (glue.partition(z, v), glue.wrap(x), glue.wrap(y))


def chain(first: Any, step: Callable[..., Any], launches: int) -> Any:
    op = first
    if not hasattr(op, "then"):
        raise Skip("the runtime's lazy op has no .then (needed to chain launches)")
    for _ in range(launches - 1):
        op = op.then(step)
    return op


def time_loop(ctx: Context, rec: Record, loop: Callable[[], None], launches: int) -> None:
    """Wall time of `loop()` (which enqueues `launches` kernels) plus the final synchronize."""
    torch = ctx.torch
    samples = []
    for _ in range(REPEATS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loop()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / launches * 1e6)
    p25, med, p75 = quantiles(samples)
    rec.metric, rec.metric_p25, rec.metric_p75 = med, p25, p75
    rec.time_s, rec.time_s_p25, rec.time_s_p75 = med * 1e-6, p25 * 1e-6, p75 * 1e-6
    rec.windows, rec.launches_per_window = REPEATS, launches


def guarded(ctx: Context, rec: Record, body: Callable[[], None]) -> Record:
    try:
        body()
    except Skip as s:
        rec.status, rec.reason = "skipped", str(s)
    except Exception as exc:
        rec.status, rec.reason = "failed", short(exc)
    return rec


def launches_case(ctx: Context, case: Case, unchecked: bool = False) -> list[Record]:
    torch = ctx.torch
    n, launches = case.params["n"], case.params["launches"]
    x, y, z = tiny(ctx, n)
    recs: list[Record] = []
    with torch.cuda.stream(ctx.stream):
        def cutile_async(variant: str, use_unchecked: bool) -> Record:
            rec = _rec(case, "cutile", variant)

            def body() -> None:
                kernel, args = cutile_tiny(ctx, x, y, z)
                launcher = kernel
                if use_unchecked:
                    launcher = ctx.glue.unchecked(kernel)
                    if launcher is None:
                        raise Skip("the runtime has no unchecked launch path (Kernel.unchecked)")
                state = {"args": launcher(*args).sync()}  # compile and warm up
                for _ in range(20):
                    state["args"] = launcher(*state["args"]).sync()

                def loop() -> None:
                    # chains of CHAIN launches (ChainOp recurses once per link), synced between
                    for start in range(0, launches, CHAIN):
                        k = min(CHAIN, launches - start)
                        state["args"] = chain(launcher(*state["args"]), launcher, k).sync()

                time_loop(ctx, rec, loop, launches)
                rec.launch_mode = "then-chain"
            return guarded(ctx, rec, body)

        if unchecked:
            recs.append(cutile_async("checked", False))
            recs.append(cutile_async("unchecked", True))
            return recs
        recs.append(cutile_async("async", False))

        rec = _rec(case, "cutile", "sync")

        def cutile_sync() -> None:
            kernel, args = cutile_tiny(ctx, x, y, z)
            state = {"args": kernel(*args).sync()}

            def loop() -> None:
                for _ in range(launches):
                    state["args"] = kernel(*state["args"]).sync()

            time_loop(ctx, rec, loop, launches)
            rec.launch_mode = "sync each"
        recs.append(guarded(ctx, rec, cutile_sync))

        for variant in ("async", "sync"):
            rec = _rec(case, "torch", variant)

            def torch_loop(variant: str = variant, rec: Record = rec) -> None:
                sync = torch.cuda.current_stream().synchronize if variant == "sync" else None
                for _ in range(20):
                    torch.add(x, y, out=z)

                def loop() -> None:
                    for _ in range(launches):
                        torch.add(x, y, out=z)
                        if sync is not None:
                            sync()

                time_loop(ctx, rec, loop, launches)
                rec.launch_mode = "direct"
            recs.append(guarded(ctx, rec, torch_loop))

        rec = _rec(case, "triton", "async")

        def triton_loop() -> None:
            tk = ctx.need_triton()
            for _ in range(20):
                tk.add(x, y, z, TINY_TILE, 4)

            def loop() -> None:
                for _ in range(launches):
                    tk.add(x, y, z, TINY_TILE, 4)

            time_loop(ctx, rec, loop, launches)
            rec.launch_mode = "direct"
        recs.append(guarded(ctx, rec, triton_loop))

        rec = _rec(case, "cuda.tile", "async")

        def ctp_loop() -> None:
            ctp = ctx.need_ctp()
            stream = ctx.ctp_stream()
            grid = ((n + TINY_TILE - 1) // TINY_TILE, 1, 1)
            for _ in range(20):
                ctp.launch(stream, grid, ctp.vadd, (x, y, z, TINY_TILE))

            def loop() -> None:
                for _ in range(launches):
                    ctp.launch(stream, grid, ctp.vadd, (x, y, z, TINY_TILE))

            time_loop(ctx, rec, loop, launches)
            rec.launch_mode = "direct"
        recs.append(guarded(ctx, rec, ctp_loop))
    return recs


def time_replays(ctx: Context, rec: Record, replay: Callable[[], None], kernels: int) -> None:
    torch = ctx.torch
    for _ in range(5):
        replay()
    torch.cuda.synchronize()
    per = []
    reps = 20
    for _ in range(ctx.cfg.windows):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            replay()
        e.record()
        e.synchronize()
        per.append(s.elapsed_time(e) * 1e3 / (reps * kernels))
    p25, med, p75 = quantiles(per)
    rec.metric, rec.metric_p25, rec.metric_p75 = med, p25, p75
    rec.time_s = med * 1e-6
    rec.windows, rec.launches_per_window = len(per), reps * kernels
    rec.launch_mode = "graph replay"


def graph_case(ctx: Context, case: Case) -> list[Record]:
    torch = ctx.torch
    n, kernels = case.params["n"], case.params["kernels"]
    x, y, z = tiny(ctx, n)
    recs: list[Record] = []
    with torch.cuda.stream(ctx.stream):
        rec = _rec(case, "cutile", "graph")

        def cutile_graph() -> None:
            kernel, args = cutile_tiny(ctx, x, y, z)
            args = kernel(*args).sync()
            g = chain(kernel(*args), kernel, kernels).graph()
            try:
                time_replays(ctx, rec, g.replay, kernels)
            finally:
                g.sync()
        recs.append(guarded(ctx, rec, cutile_graph))

        def torch_graph(impl: str, launch: Callable[[], None]) -> Record:
            rec = _rec(case, impl, "graph")

            def body() -> None:
                for _ in range(3):
                    launch()
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    for _ in range(kernels):
                        launch()
                time_replays(ctx, rec, graph.replay, kernels)
            return guarded(ctx, rec, body)

        recs.append(torch_graph("torch", lambda: torch.add(x, y, out=z)))

        def triton_launch() -> None:
            ctx.need_triton().add(x, y, z, TINY_TILE, 4)
        recs.append(torch_graph("triton", triton_launch))

        def ctp_launch() -> None:
            ctp = ctx.need_ctp()
            ctp.launch(torch.cuda.current_stream(), ((n + TINY_TILE - 1) // TINY_TILE, 1, 1),
                       ctp.vadd, (x, y, z, TINY_TILE))
        recs.append(torch_graph("cuda.tile", ctp_launch))
    return recs


def compile_case(ctx: Context, case: Case) -> list[Record]:
    recs = {v: _rec(case, "cutile", v) for _, v in variants(case)}
    if ctx.glue is None:
        for r in recs.values():
            r.status, r.reason = "skipped", ctx.cutile_reason
        return list(recs.values())
    with tempfile.TemporaryDirectory(prefix="cutile-cache-") as cache:
        env = dict(os.environ, CUTILE_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            try:
                done = subprocess.run([sys.executable, "-m", "benchmarks.suite.compile_probe",
                                       str(ctx.root)], cwd=ctx.root, env=env, text=True,
                                      capture_output=True, timeout=120, check=False)
                line = (done.stdout.strip().splitlines() or ["{}"])[-1]
                runs.append(json.loads(line) if line.startswith("{") else
                            {"error": (done.stderr or done.stdout)[-300:]})
            except Exception as exc:
                runs.append({"error": short(exc)})
    first, second = runs
    picks = {"cold add": (first, "add_first_s"), "warm add": (first, "add_second_s"),
             "cold gemm": (first, "gemm_first_s"), "disk hit add": (second, "add_first_s")}
    for variant, (run, key) in picks.items():
        rec = recs[variant]
        if key in run:
            rec.metric = run[key] * 1e3
            rec.time_s = run[key]
            rec.windows = 1
            rec.launch_mode = "fresh process: " + str(run.get("method", ""))[:60]
        else:
            rec.status, rec.reason = "failed", str(run.get("error", "no result"))[:300]
    return list(recs.values())


def run(ctx: Context, case: Case) -> list[Record]:
    if "graph" in case.shape:
        out = graph_case(ctx, case)
    elif case.shape == "compile":
        out = compile_case(ctx, case)
    else:
        out = launches_case(ctx, case)
    ctx.torch.cuda.synchronize()
    return out
