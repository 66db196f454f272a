"""Benchmark #8/#9 (host side): what one launch of a tiny add costs on the host.

    python benchmarks/launch_overhead.py [--backend null|cuda-null|cuda] [--launches 10000]
                                         [--profile] [--torch-memory] [--chain N] [--pieces]

- `launch+sync`: `z, x, y = add(z, x, y).sync()` in a loop (validation, ownership, packing,
  the driver call, the wait);
- `fresh+sync`: the same with new handles around every launch, as host loops usually write
  it: `add(buf.reshape((N // 2, 2)).reshape(N).partition((TILE,)), x, y, B=TILE).sync()`, then
  `buf = z.unpartition()` (a Const by keyword; each handle's checks, its plan found anew);
- `then_chain`: launches that do not wait, as `.then` chains of 100 synced once (per launch);
- `unchecked_*`: the same through `add.unchecked(...)`, which skips ownership and the value
  checks: `checks_us` (chain minus unchecked chain) is what safety costs per launch
  (BENCHMARKS #9: <= 0.3 us);
- `graph`: a `.then` chain of 100 launches captured with `.graph()`, replayed; per kernel;
- `--pieces`: `linked_us` and `enqueue_us`, two parts of a chained launch timed apart
  (`launch_pieces`).

`--torch-memory` launches on torch tensors (through `ct.from_dlpack`) on torch's current stream, as
the benchmark suite does; `--chain` sets the `.then` chain length (the suite uses 250).
`--backend null` (the default here) runs on a backend whose kernels do nothing, so the numbers
are cutile's own host overhead above the backend; `--backend cuda-null` runs the real CUDA
backend (compiling with tileiras, packing parameters, `cuda/driver.py`'s wrappers and handle
objects) over a stand-in for cuda.bindings whose calls do nothing (`null_driver.py`): all of the
CUDA launch path's Python, timed without a GPU (it adds `graph_replay_us`: host time of one
replay); `--backend cuda` uses the GPU (and adds `graph`: wall time per kernel of back-to-back
replays). Both null modes time the process's CPU time and print min and median over the loops.
Targets: <= 3 us per launch, <= 1 us per kernel in a graph.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import importlib.util
import json
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
N, TILE = 4096, 1024
GRAPH_LAUNCHES = 100


def _module(path: Path, name: str) -> Any:
    """The file at `path` run as module `name` (this script runs without the repo on sys.path)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_add() -> Any:
    return _module(ROOT / "examples" / "add.py", "cutile_bench_add").add


def null_backend() -> Any:
    """The interpreter's memory, but kernels that do nothing: only cutile's host work is left."""
    from cutile.runtime.backends.base import Executable
    from cutile.runtime.backends.interpreter import InterpreterBackend

    class Nothing(Executable):
        def enqueue(self, args: Sequence[Any], grid: tuple[int, int, int], stream: int) -> None:
            return None

    class NullBackend(InterpreterBackend):
        name = "null"

        def prepare(self, kernel: Any, spec: Any) -> Executable:
            return Nothing()

    return NullBackend()


def null_cuda_backend() -> Any:
    """The CUDA backend of device 0 over `null_driver.py`'s do-nothing bindings."""
    mod = _module(ROOT / "benchmarks" / "null_driver.py", "cutile_null_driver")
    from cutile.runtime.backends.cuda import CudaBackend
    from cutile.runtime.cuda import driver

    driver.use_binding(mod.null_binding())
    return CudaBackend(0)


@contextlib.contextmanager
def null_cuda() -> Iterator[None]:
    """null_cuda_backend() as the current backend inside the block (kernels compile with the
    real tileiras, every launch is packed, nothing runs); the real bindings and the previous
    backend after it."""
    from cutile.runtime import context
    from cutile.runtime.cuda import driver

    real = driver.drv
    old = context.set_backend(null_cuda_backend())
    try:
        yield
    finally:
        driver.use_binding(real)
        context.set_backend(old)


def per_launch(fn: Callable[[int], None], launches: int, repeats: int = 5,
               clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """The best and the median of `repeats` loops, per launch in microseconds (the best, as
    timeit reports: on a shared machine the slower loops measure the neighbours)."""
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn(launches)
        samples.append((clock() - t0) / launches * 1e6)
    return min(samples), statistics.median(samples)


def graph_replay_host(add: Any, state: list[Any], launches: int,
                      clock: Callable[[], float]) -> float:
    """Host time of one `g.replay()` of a captured 100-launch chain, in microseconds."""
    z, x, y = state
    op = add(z, x, y)
    for _ in range(GRAPH_LAUNCHES - 1):
        op = op.then(add)
    g = op.graph()
    t0 = clock()
    for _ in range(launches):
        g.replay()
    spent = clock() - t0
    state[:] = g.sync()
    return spent / launches * 1e6


def graph_per_kernel(add: Any, state: list[Any], launches: int) -> float:
    """A `.then` chain of 100 launches captured once, replayed; wall time per kernel."""
    z, x, y = state
    op = add(z, x, y)
    for _ in range(GRAPH_LAUNCHES - 1):
        op = op.then(add)
    g = op.graph()
    replays = max(1, launches // GRAPH_LAUNCHES)
    t0 = time.perf_counter()
    for _ in range(replays):
        g.replay()
    state[:] = g.sync()
    return (time.perf_counter() - t0) / (replays * GRAPH_LAUNCHES) * 1e6


def launch_pieces(add: Any, state: list[Any], launches: int,
                  clock: Callable[[], float]) -> dict[str, float]:
    """Two parts of a chained launch, timed apart (the rest of `then_chain_us` is the `.then`
    link and the chain's walk): `linked_us`, a launch as a chain link makes it (plan lookup,
    the plan's launcher, the moves) and its completion, without the enqueue; `enqueue_us`, the
    enqueue alone (packing and the backend's launch call), with one launch's arguments."""
    from cutile.runtime.launch import launch_linked
    from cutile.runtime.ops import Phase

    op = add(*state)
    exe, args, grid, stream, site = op._exe, op._args, op._grid, op.stream, op.site
    state[:] = op.sync()

    def linked(n: int) -> None:
        values = tuple(state)
        for _ in range(n):
            nxt = launch_linked(add, site, values)
            nxt.phase = Phase.DONE  # as if its work ran: the launch is completed, not enqueued
            nxt._complete()
            values = nxt._results
        state[:] = values

    def enqueue(n: int) -> None:
        for _ in range(n):
            exe.enqueue(args, grid, stream)

    return {"linked_us": per_launch(linked, launches, clock=clock)[0],
            "enqueue_us": per_launch(enqueue, launches, clock=clock)[0]}


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=("null", "cuda-null", "cuda"), default="null")
    ap.add_argument("--launches", type=int, default=10_000)
    ap.add_argument("--profile", action="store_true", help="cProfile the .then chain loop")
    ap.add_argument("--torch-memory", action="store_true",
                    help="torch tensors through ct.from_dlpack, on torch's current stream")
    ap.add_argument("--chain", type=int, default=100, help="launches per .then chain")
    ap.add_argument("--pieces", action="store_true",
                    help="also time a chained launch's parts apart (launch_pieces)")
    opts = ap.parse_args(argv)

    import cutile as ct
    from cutile.runtime import context
    from cutile.runtime.constructors import ones, zeros

    be = {"null": null_backend, "cuda-null": null_cuda_backend}.get(opts.backend, lambda: None)()
    if be is not None:
        context.set_backend(be)
    elif ct.backend_name() != "cuda":
        raise SystemExit("--backend cuda needs a GPU")
    add = load_add()
    if opts.torch_memory:
        import torch

        context.set_current_stream(torch.cuda.current_stream().cuda_stream)
        z, x, y = (ct.from_dlpack(torch.ones(N, device="cuda")) for _ in range(3))
        first = (z.partition((TILE,)), x, y)
    else:
        first = (zeros((N,), ct.f32).partition((TILE,)), ones((N,), ct.f32), ones((N,), ct.f32))
    state = list(add(*first).sync())  # compiles once
    chain = opts.chain

    def sync_loop(launch: Callable[..., Any]) -> Callable[[int], None]:
        def loop(n: int) -> None:
            z, x, y = state
            for _ in range(n):
                z, x, y = launch(z, x, y).sync()
            state[:] = (z, x, y)
        return loop

    def fresh_loop(n: int) -> None:
        z, x, y = state
        buf = z.unpartition()
        for _ in range(n):
            view = buf.reshape((N // 2, 2)).reshape(N)
            z, x, y = add(view.partition((TILE,)), x, y, B=TILE).sync()
            buf = z.unpartition()
        state[:] = (buf.partition((TILE,)), x, y)

    def chain_loop(launch: Callable[..., Any]) -> Callable[[int], None]:
        """Launches that do not wait: `.then` chains of `chain` launches, synced once each."""
        def loop(n: int) -> None:
            z, x, y = state
            for start in range(0, n, chain):
                op = launch(z, x, y)
                for _ in range(min(chain, n - start) - 1):
                    op = op.then(launch)
                z, x, y = op.sync()
            state[:] = (z, x, y)
        return loop

    # null modes: the process's CPU time (all of it is host work; neighbours' load stays out);
    # cuda: wall time, since waiting for the device is part of what a launch costs
    clock = time.perf_counter if opts.backend == "cuda" else time.process_time
    n = opts.launches
    results: dict[str, float] = {}
    for name, loop in (("launch+sync_us", sync_loop(add)),
                       ("fresh+sync_us", fresh_loop),
                       ("unchecked+sync_us", sync_loop(add.unchecked)),
                       ("then_chain_us", chain_loop(add)),
                       ("unchecked_then_chain_us", chain_loop(add.unchecked))):
        best, median = per_launch(loop, n, clock=clock)
        results[name] = best
        results[name.replace("_us", "_median_us")] = median
    results["checks_us"] = results["then_chain_us"] - results["unchecked_then_chain_us"]

    if opts.backend == "cuda":  # a null backend's replay does nothing: no number to report
        results["graph_per_kernel_us"] = graph_per_kernel(add, state, opts.launches)
    elif opts.backend == "cuda-null":
        results["graph_replay_us"] = graph_replay_host(add, state, n, clock)

    if opts.pieces:
        results.update(launch_pieces(add, state, n, clock))
    if opts.profile:
        prof = cProfile.Profile()
        prof.runcall(chain_loop(add), opts.launches)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    print(json.dumps({"backend": opts.backend, **{k: round(v, 3) for k, v in results.items()}}))
    return results


if __name__ == "__main__":
    main()
