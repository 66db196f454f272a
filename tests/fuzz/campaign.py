"""A fuzz campaign: generate cases from a seed, run them in a worker with a time limit, group
failures by signature, shrink the first case of each group and write it to a file."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .shrink import ddmin
from .worker import Outcome, Worker


@dataclass
class Failure:
    outcome: Outcome
    index: int  # the case number: --seed S plus this regenerates it
    count: int = 1
    repro: Path | None = None


@dataclass
class Summary:
    target: str
    seed: str
    cases: int = 0
    seconds: float = 0.0
    failures: dict[str, Failure] = field(default_factory=dict)

    def line(self) -> str:
        kinds: dict[str, int] = {}
        for f in self.failures.values():
            kinds[f.outcome.kind] = kinds.get(f.outcome.kind, 0) + f.count
        return (f"{self.target}: {self.cases} cases, seed {self.seed}, {self.seconds:.0f} s, "
                f"{sum(f.count for f in self.failures.values())} failing "
                f"({len(self.failures)} distinct; {kinds or 'none'})")


def _case_rng(seed: str, index: int) -> random.Random:
    return random.Random(f"{seed}:{index}")


def run(target: ModuleType, name: str, n: int, seed: str, timeout: float,
        out: Path | None = None, huge_lines: int = 0, shrink_budget: int = 200,
        progress: Callable[[str], None] | None = None) -> Summary:
    summary = Summary(name, seed)
    worker = Worker(target.check, getattr(target, "setup", None))
    start = time.monotonic()
    every = max(1, min(1000, n // 40))  # progress lines
    try:
        for index in range(n):
            case = target.case(_case_rng(seed, index), huge_lines)
            outcome = worker.run(case, timeout)
            summary.cases += 1
            if outcome.kind != "ok":
                _record(summary, target, worker, outcome, index, case, timeout, out,
                        shrink_budget, progress)
            if progress and (index + 1) % every == 0:
                summary.seconds = time.monotonic() - start
                progress(summary.line())
    finally:
        worker.close()
    summary.seconds = time.monotonic() - start
    return summary


def _record(summary: Summary, target: ModuleType, worker: Worker, outcome: Outcome, index: int,
            case: Any, timeout: float, out: Path | None, budget: int,
            progress: Callable[[str], None] | None) -> None:
    key = f"{outcome.kind}: {outcome.signature}"
    known = summary.failures.get(key)
    if known is not None:
        known.count += 1
        return
    failure = Failure(outcome, index)
    summary.failures[key] = failure
    if progress:
        progress(f"case {index}: {key}")
    if out is not None:
        # a hang costs the whole time limit per try: shrink those only a little
        small = shrink(target, worker, case, outcome, timeout,
                       min(budget, 12) if outcome.kind == "hang" else budget)
        failure.repro = write_repro(target, summary, index, small, outcome, out)
        if progress:
            progress(f"  minimal repro: {failure.repro}")


def shrink(target: ModuleType, worker: Worker, case: Any, outcome: Outcome, timeout: float,
           budget: int) -> Any:
    """The smallest case (by lines, statements or messages) that fails the same way."""
    split: Callable[[Any], list[Any]] = getattr(target, "split", _split)
    join: Callable[[list[Any], Any], Any] = getattr(target, "join", _join)

    def same(parts: list[Any]) -> bool:
        got = worker.run(join(parts, case), timeout)
        return got.kind == outcome.kind and got.signature == outcome.signature

    return join(ddmin(split(case), same, budget), case)


def _split(case: Any) -> list[Any]:
    if isinstance(case, (str, bytes)):
        return list(case.splitlines(keepends=True))
    return list(case)


def _join(parts: list[Any], like: Any) -> Any:
    if isinstance(like, str):
        return "".join(parts)
    if isinstance(like, bytes):
        return b"".join(parts)
    return parts


def write_repro(target: ModuleType, summary: Summary, index: int, case: Any, outcome: Outcome,
                out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{summary.target}-{summary.seed}-{index}"
    render = getattr(target, "render", None)
    if render is not None:
        path, data = out / f"{stem}.py", render(case).encode()
    elif isinstance(case, bytes):
        path, data = out / f"{stem}.bin", case
    elif isinstance(case, str):
        path, data = out / f"{stem}.py", case.encode("utf-8", errors="surrogatepass")
    else:
        path, data = out / f"{stem}.json", json.dumps(case, indent=1).encode()
    path.write_bytes(data)
    (out / f"{stem}.txt").write_text(f"{outcome.kind}: {outcome.signature}\n\n{outcome.detail}")
    return path
