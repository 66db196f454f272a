"""What tileiras chose for every cutile variant of the benchmark suite, on the CPU.

    python benchmarks/kernel_resources.py [--quick] [--only ROW ...] [--arch sm_90] [--out FILE]

Compiles each variant of `benchmarks/suite/tuning.py` with the arguments its row launches it with
(through the disk cache, so a second run is quick) and prints a Markdown table of registers per
thread, threads per CTA, static shared memory, spill/refill instructions and stack bytes, read
from the cubins by `Compiled.resources`. No GPU needed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.suite.dryrun import compile_variant  # noqa: E402
from benchmarks.suite.plan import ROWS, Case, build_plan  # noqa: E402
from benchmarks.suite.tuning import cutile_variants  # noqa: E402
from cutile.compiler.toolchain.cubin_info import Resources, size  # noqa: E402

HEADER = ("row", "shape", "variant", "registers", "threads", "smem", "spill", "stack")


def rows(plan: list[Case], arch: str) -> list[tuple[str, ...]]:
    out = []
    for case in plan:
        for v in cutile_variants(case, arch):
            if v.tuned:  # ct.autotune over the variants listed on their own
                continue
            r: Resources = compile_variant(ROOT, case, v, arch).resources
            shape = f"{case.shape} {case.dtype}".strip()
            out.append((f"{case.row} {case.kernel}", shape, f"{v.kernel} {v.label}", *cells(r)))
    return out


def cells(r: Resources) -> tuple[str, ...]:
    threads = "?" if r.threads is None else str(r.threads)
    if r.cluster is not None:
        threads += " (cluster " + "x".join(map(str, r.cluster)) + ")"
    spill = str(r.spill_refills) + (f" (+{size(r.local_bytes)} local)" if r.local_bytes else "")
    return (str(r.registers), threads, size(r.shared_bytes), spill, size(r.stack_bytes))


def table(lines: list[tuple[str, ...]]) -> str:
    out = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(cells) + " |" for cells in lines]
    out += ["", "registers per thread; threads per CTA; smem: static shared memory per CTA; "
            "spill: instructions ptxas marked as register spills or refills; stack: bytes per "
            "thread (where spills go)."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the --quick plan's shapes only")
    ap.add_argument("--only", action="append", default=[], choices=list(ROWS),
                    help="only this row of the suite (repeatable)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", type=Path, help="also write the table to this file")
    a = ap.parse_args(argv)
    text = table(rows(build_plan(a.quick, a.only), a.arch))
    print(text, end="")
    if a.out is not None:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
