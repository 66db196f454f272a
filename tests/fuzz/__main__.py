"""python -m tests.fuzz --target checker|host|parity|acc|lsp|disk|files --n N --seed S [--out DIR]:
a long fuzz run. `--target host --backend cuda` runs each host program on the interpreter and on
the GPU and compares them (with NumPy too); `--backend interpreter` is that comparison on the CPU
alone. `--target parity` holds the checker to what the interpreter raises. `--target acc`
launches random accumulations into an `Acc` (ops, dtypes, tiles, indices in and out of range)
against NumPy, on the interpreter and, with `--backend cuda`, on the GPU.

Exit status 1 when any case failed; each distinct failure's minimal repro is written to --out
(with a .txt file holding the error)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from . import campaign

TARGETS = {"checker": ".checker_target", "host": ".host_target", "parity": ".parity_target",
           "lsp": ".lsp_target", "disk": ".disk_target", "files": ".files_target",
           "acc": ".acc_target"}
TIMEOUTS = {"checker": 60.0, "host": 30.0, "parity": 60.0, "lsp": 180.0, "disk": 60.0,
            "files": 120.0, "acc": 120.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--target", choices=sorted(TARGETS), default="checker")
    parser.add_argument("--n", type=int, default=1000, help="number of cases")
    parser.add_argument("--seed", default="0", help="any string; the same seed, the same cases")
    parser.add_argument("--timeout", type=float, help="seconds per case before it is a hang")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                        help="where minimal repros go (default ./fuzz-failures)")
    parser.add_argument("--huge-lines", type=int, default=20_000,
                        help="size of the occasional huge module (checker target)")
    parser.add_argument("--shrink-budget", type=int, default=200, help="tries per shrink")
    parser.add_argument("--backend", choices=("cuda", "interpreter", "python-path"),
                        help="host and acc targets: also run each case there and compare it "
                        "with the interpreter and NumPy (default: the interpreter alone); "
                        "python-path (host): the interpreter with the compiled launch path off")
    args = parser.parse_args(argv)
    target = importlib.import_module(TARGETS[args.target], __package__)
    if args.backend is not None:
        if args.target not in ("host", "acc") or (args.backend == "python-path"
                                                  and args.target != "host"):
            parser.error("--backend applies to --target host and --target acc "
                         "(python-path: host)")
        target.configure(args.backend)
    summary = campaign.run(target, args.target, args.n, args.seed,
                           args.timeout or TIMEOUTS[args.target], args.out, args.huge_lines,
                           args.shrink_budget, progress=lambda s: print(s, flush=True))
    print(summary.line())
    for key, failure in summary.failures.items():
        print(f"  {failure.count:>6} x {key} (first: case {failure.index}; repro: "
              f"{failure.repro})")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
