"""Benchmark #8 (compile part): what a user waits for the first time a kernel runs.

    python benchmarks/compile_times.py [--arch sm_90] [--repeat 3] [--profile]

Each probe runs in a fresh process with its own cache directory and times `kernel.compile(...)`
on `ct.meta` arguments (frontend, lowering, bytecode, tileiras; no GPU needed), after importing
the compiler (its import time, printed separately, is paid once per process):
- cold: `examples/add.py` (tile 1024) and `examples/gemm.py` (bf16, tiles 128x128x64) with an
  empty `CUTILE_CACHE_DIR`;
- disk hit: the GEMM again in a new process over the warm cache directory (memory cache empty).
Targets (BENCHMARKS.md #8): cold add <= 0.5 s, cold GEMM <= 1.5 s, disk-cache hit <= 30 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS_S = {"cold add": 0.5, "cold gemm 128x128x64": 1.5, "disk hit gemm": 0.030}

PROBE = """
import sys, time
sys.path.insert(0, {examples!r})
import cutile as ct
import cutile.compiler.compile  # import time is not compile time (reported separately)
from cutile import bf16, f32
kind, arch = {kind!r}, {arch!r}
if kind == "add":
    from add import add as k
    args = (ct.meta((1 << 24,), f32).partition((1024,)), ct.meta((1 << 24,), f32),
            ct.meta((1 << 24,), f32))
    consts = {{}}
else:
    from gemm import gemm as k
    args = (ct.meta((4096, 4096), bf16).partition((128, 128)), ct.meta((4096, 4096), bf16),
            ct.meta((4096, 4096), bf16))
    consts = {{"BK": 64}}
start = time.perf_counter()
if {profile!r}:
    import cProfile, pstats
    prof = cProfile.Profile()
    compiled = prof.runcall(k.compile, *args, arch=arch, **consts)
    pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
else:
    compiled = k.compile(*args, arch=arch, **consts)
print(time.perf_counter() - start, len(compiled.cubin))

"""


def probe(kind: str, arch: str, cache: str, profile: bool = False) -> float:
    """Seconds for one compile in a fresh process; `profile` prints its cProfile to stderr."""
    code = PROBE.format(examples=str(ROOT / "examples"), kind=kind, arch=arch, profile=profile)
    env = {**os.environ, "CUTILE_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, cwd=ROOT)
    if profile:
        print(out.stderr, file=sys.stderr)
    seconds, cubin_bytes = out.stdout.split()
    assert int(cubin_bytes) > 0
    return float(seconds)


def measure(arch: str, repeat: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in TARGETS_S}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as add_cache, tempfile.TemporaryDirectory() as cache:
            times["cold add"].append(probe("add", arch, add_cache))
            times["cold gemm 128x128x64"].append(probe("gemm", arch, cache))
            times["disk hit gemm"].append(probe("gemm", arch, cache))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of one disk-cache hit and exit")
    args = parser.parse_args()
    if args.profile:
        with tempfile.TemporaryDirectory() as cache:
            probe("gemm", args.arch, cache)
            print(f"disk hit: {probe('gemm', args.arch, cache, profile=True) * 1000:.1f} ms")
        return
    times = measure(args.arch, args.repeat)
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        met = "met" if median <= TARGETS_S[name] else "not met"
        rows.append({"probe": name, "median_s": median, "all_s": values,
                     "target_s": TARGETS_S[name], "verdict": met})
        print(f"{name:22s} median {median * 1000:8.1f} ms  (target {TARGETS_S[name] * 1000:.0f} "
              f"ms, {met}; runs: {', '.join(f'{v * 1000:.0f}' for v in values)} ms)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
