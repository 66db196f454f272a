"""Copies a suite run's headline into the README: the environment and the targets table.

    python -m benchmarks.suite.publish [RESULTS_DIR] [--readme README.md]

Reads RESULTS_DIR/results.json (default benchmarks/results) and rewrites the part of the README
between the `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->` markers, so the README
always shows the committed run and nothing typed by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .records import read_json
from .report import env_lines, summary_line, targets_table
from .targets import evaluate

START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"


def section(results: Path) -> str:
    env, command, records = read_json(results / "results.json")
    checks = evaluate(records)
    link = "benchmarks/results/results.md"
    return "\n".join([START, *env_lines(env, command), "",
                      f"{summary_line(checks)} Every measurement, with peers and spreads: "
                      f"[{link}]({link}).", "", *targets_table(checks), END])


def publish(results: Path, readme: Path) -> None:
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{readme} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + section(results) + tail)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.suite.publish", description=__doc__)
    ap.add_argument("results", nargs="?", type=Path, default=Path("benchmarks/results"))
    ap.add_argument("--readme", type=Path, default=Path("README.md"))
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    publish(a.results, a.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
