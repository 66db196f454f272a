"""Does `cutile-check` stay linear in file size? (target: a 100,000-line file in under 10 s)

    python benchmarks/checker_scaling.py [--sizes 10000 50000 100000] [--repeat 1]

Writes one module per size made of a repeated block (two kernels, a helper and a host function
that partitions, launches, syncs and loops, as real code does, each copy with its own names), runs
the real command line (`python -m cutile.checker FILE`) on it in a fresh process and prints the
seconds, the seconds per 10,000 lines, and the ratio to the smallest size per line: a ratio near
1.0 means linear, a growing one means something superlinear is back.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the blocks check_speed.py times (kernels, a helper, host code that partitions, launches,
# syncs and loops), repeated with fresh names
from check_speed import BLOCK, HEADER


def module(lines: int) -> str:
    """A module of about `lines` lines (whole blocks only)."""
    per_block = BLOCK.count("\n")
    blocks = max(1, (lines - HEADER.count("\n")) // per_block)
    return HEADER.format(index=0) + "".join(BLOCK.format(n=n) for n in range(blocks))


def time_check(path: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one `cutile-check` run on `path` (process start included), and
    its exit code. CPU time is what to compare on a shared machine: wall time includes waiting
    for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cutile.checker", str(path)],
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per size")
    args = parser.parse_args()
    base: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            text = module(size)
            path = Path(tmp) / f"scaling_{size}.py"
            path.write_text(text)
            lines = text.count("\n")
            runs = [time_check(path) for _ in range(max(1, args.repeat))]
            wall = min(r[0] for r in runs)
            cpu = min(r[1] for r in runs)
            per_10k = cpu * 10_000 / lines
            base = per_10k if base is None else base
            print(f"{lines:>7} lines: {wall:6.2f} s wall, {cpu:6.2f} s CPU ({per_10k:.2f} CPU s "
                  f"per 10k lines, x{per_10k / base:.2f} of the smallest; exit {runs[0][2]})",
                  flush=True)


if __name__ == "__main__":
    main()
