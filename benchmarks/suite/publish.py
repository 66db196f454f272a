"""Copies a suite run's headline into the docs: the targets table into docs/benchmarks.md, a
short summary with the plot into the README.

    python -m benchmarks.suite.publish [RESULTS_DIR] [--readme README.md] [--docs PATH]

Reads RESULTS_DIR/results.json (default benchmarks/results) and rewrites the part of each file
between the `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->` markers, so both always
show the committed run and nothing typed by hand. The docs page defaults to docs/benchmarks.md
beside the README, when it exists.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .records import read_json
from .report import env_lines, summary_line, targets_table
from .targets import Check, evaluate

START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
RESULTS_MD = "benchmarks/results/results.md"


def section(results: Path, link_prefix: str = "") -> str:
    """The full headline: environment, summary and every target (docs/benchmarks.md)."""
    env, command, records = read_json(results / "results.json")
    checks = evaluate(records)
    link = link_prefix + RESULTS_MD
    return "\n".join([START, *env_lines(env, command), "",
                      f"{summary_line(checks)} Every measurement, with peers and spreads: "
                      f"[{link}]({link}).", "", *targets_table(checks), END])


def summary(results: Path) -> str:
    """The README's part: when, where, how many targets, each row's best and worst ratio, the
    plot, and where the table is."""
    env, _, records = read_json(results / "results.json")
    checks = evaluate(records)
    gpu = env.get("nvidia_smi", {}).get("name", "unknown GPU")
    plot = results / "suite.png"
    lines = [START, f"{summary_line(checks)} Run of {env.get('date', '?')} on an {gpu}; every "
             "target with its peers: [docs/benchmarks.md](docs/benchmarks.md#latest-run).", "",
             *_row_ranges(checks)]
    if plot.exists():
        lines += ["", f"![cutile and its peers, per row and shape]({plot.as_posix()})"]
    return "\n".join([*lines, END])


def _row_ranges(checks: list[Check]) -> list[str]:
    rows: dict[tuple[int, str], list[Check]] = {}
    for c in checks:
        rows.setdefault((c.row, c.kernel), []).append(c)
    out = ["| # | kernel | targets met | ratios (lowest - highest) |", "|---|---|---|---|"]
    for (row, kernel), cs in sorted(rows.items()):
        values = [c.value for c in cs if c.value is not None]
        met = sum(1 for c in cs if c.met)
        ratios = values and all(" / " in c.what for c in cs)  # rows 8-9 hold times and shares
        span = f"{min(values):.3g} - {max(values):.3g}" if ratios else "see the table"
        out.append(f"| {row} | {kernel} | {met} of {len(cs)} | {span} |")
    return out


def _replace(path: Path, text: str) -> None:
    old = path.read_text()
    if START not in old or END not in old:
        raise SystemExit(f"{path} has no {START} ... {END} markers")
    head, rest = old.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(head + text + tail)


def publish(results: Path, readme: Path, docs: Path | None = None) -> None:
    if docs is not None:
        _replace(docs, section(results, "../"))
    _replace(readme, summary(results))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.suite.publish", description=__doc__)
    ap.add_argument("results", nargs="?", type=Path, default=Path("benchmarks/results"))
    ap.add_argument("--readme", type=Path, default=Path("README.md"))
    ap.add_argument("--docs", type=Path, default=None)
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    docs = a.docs or a.readme.parent / "docs" / "benchmarks.md"
    publish(a.results, a.readme, docs if a.docs or docs.exists() else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
