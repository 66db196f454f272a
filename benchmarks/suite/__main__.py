"""`python -m benchmarks.suite [--quick] [--only NAME ...] [--out DIR] [--dry-run] [--sweep]`."""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
import time
import traceback
from pathlib import Path

from .config import SuiteConfig
from .plan import ROWS, build_plan
from .tuning import set_sweep

ROOT = Path(__file__).resolve().parents[2]


def parse(argv: list[str]) -> SuiteConfig:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.suite", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer shapes, shorter windows (~2 min)")
    ap.add_argument("--only", action="append", default=[], choices=list(ROWS),
                    help="run only this row (repeatable); the ceilings always run")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    ap.add_argument("--dry-run", action="store_true",
                    help="build the plan and check the cutile kernels; no GPU needed")
    ap.add_argument("--sweep", action="store_true",
                    help="also time more cutile candidates per case (tuning.sweep_variants)")
    a = ap.parse_args(argv)
    return SuiteConfig.make(a.quick, only=a.only, out=a.out, dry_run=a.dry_run, sweep=a.sweep)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cfg = parse(argv)
    set_sweep(cfg.sweep)
    plan = build_plan(cfg.quick, cfg.only)
    if cfg.dry_run:
        from .dryrun import report

        text, ok = report(ROOT, plan, cfg)
        print(text)
        return 0 if ok else 1
    return run(cfg, plan, "python -m benchmarks.suite " + shlex.join(argv))


def run(cfg: SuiteConfig, plan: list, command: str) -> int:  # type: ignore[type-arg]
    import torch

    from . import env as envmod
    from . import plots, records, report
    from .dryrun import ROW_MODULES
    from .rows.common import Context

    if not torch.cuda.is_available():
        print("no CUDA device: run this on the GPU machine (or use --dry-run)", file=sys.stderr)
        return 2
    cfg.out.mkdir(parents=True, exist_ok=True)
    log_path = cfg.out / "suite.log"
    log_file = log_path.open("w")

    def log(msg: str) -> None:
        print(msg, flush=True)
        log_file.write(msg + "\n")
        log_file.flush()

    started = time.perf_counter()
    env = envmod.collect(ROOT)
    ctx = Context(cfg, ROOT, torch, log)
    for name, reason in (("cutile", ctx.cutile_reason), ("triton", ctx.triton_reason),
                         ("cuda.tile", ctx.ctp_reason)):
        if reason:
            log(f"note: {name}: {reason}")
    recs: list[records.Record] = []
    for case in plan:
        t0 = time.perf_counter()
        mod = importlib.import_module(f".rows.{ROW_MODULES[case.kernel]}", __package__)
        try:
            got = mod.run(ctx, case)
        except Exception as exc:
            log(traceback.format_exc(limit=5))
            got = [records.Record(case.row, case.kernel, case.shape, "cutile", "", case.dtype,
                                  dict(case.params), status="failed",
                                  reason=f"row crashed: {exc.__class__.__name__}: {exc}"[:300],
                                  metric_name=case.metric_name)]
        recs += got
        best = ", ".join(f"{r.impl}[{r.variant}] {r.metric:.4g}" for r in got if r.ok)
        log(f"#{case.row} {case.kernel} {case.shape} {case.dtype}: {time.perf_counter() - t0:.1f}s"
            f" | {best or 'no timed results'}")
        for r in got:
            if r.status != "ok":
                log(f"    {r.impl}[{r.variant}] {r.status}: {r.reason}")
        # write as we go: a run cut short still leaves its measurements
        records.write_json(cfg.out / "results.json", env, command, recs)
    env["wall_s"] = round(time.perf_counter() - started, 1)
    records.write_json(cfg.out / "results.json", env, command, recs)
    report.write(cfg.out / "results.md", env, command, recs)
    _, note = plots.write(cfg.out, recs)
    if note:
        log(note)
    log(f"done in {env['wall_s']} s: {cfg.out / 'results.md'}")
    log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
