"""The fuzzers' CI slice: a fixed, seeded budget of each target (long runs use
`python -m tests.fuzz`). A failure prints its case number and a shrunk repro."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

from . import campaign, checker_target, disk_target, files_target, host_target, lsp_target

CHECKER_CASES = 150
DISK_CASES = 150
FILES_CASES = 150
HOST_PROGRAMS = 150
LSP_SESSIONS = 2


def _assert_clean(summary: campaign.Summary) -> None:
    report = [f"{key} (case {f.index}, repro {f.repro}):\n{f.outcome.detail[-2000:]}"
              for key, f in summary.failures.items()]
    assert not report, summary.line() + "\n" + "\n\n".join(report)


def test_checker_budget(tmp_path: Path) -> None:
    summary = campaign.run(checker_target, "checker", CHECKER_CASES, "ci", 60.0, tmp_path,
                           huge_lines=3000)
    assert summary.cases == CHECKER_CASES
    _assert_clean(summary)


def test_buffer_vs_disk_budget(tmp_path: Path) -> None:
    summary = campaign.run(disk_target, "disk", DISK_CASES, "ci", 60.0, tmp_path)
    assert summary.cases == DISK_CASES
    _assert_clean(summary)


def test_unreadable_files_budget(tmp_path: Path) -> None:
    summary = campaign.run(files_target, "files", FILES_CASES, "ci", 120.0, tmp_path)
    assert summary.cases == FILES_CASES
    _assert_clean(summary)


def test_host_programs_budget(tmp_path: Path) -> None:
    """Well-formed host programs (any order of constructors, partitions, launches, sync, then,
    graph, await and cancelled awaits) never fail outside the CutileError family. The long runs
    add malformed arguments too."""
    def valid(rng: random.Random, huge_lines: int = 0) -> list[str]:
        return host_target.case(rng, huge_lines, valid=True)

    target = SimpleNamespace(case=valid, check=host_target.check, setup=host_target.setup,
                             render=host_target.render)
    summary = campaign.run(target, "host", HOST_PROGRAMS, "ci", 20.0, tmp_path)  # type: ignore[arg-type]
    _assert_clean(summary)


def test_language_server_budget(tmp_path: Path) -> None:
    summary = campaign.run(lsp_target, "lsp", LSP_SESSIONS, "ci", 180.0, tmp_path)
    _assert_clean(summary)


def test_the_fuzzers_find_a_planted_crash(tmp_path: Path) -> None:
    """The harness itself: an exception escaping a target is caught, grouped and shrunk."""
    def boom(text: str) -> str | None:
        if "boom" in text:
            raise ValueError("planted")
        return None

    def cases(rng: random.Random, huge_lines: int = 0) -> str:
        return "a = 1\nb = 2\nboom = 3\nc = 4\n" if rng.random() < 0.5 else "a = 1\n"

    target = SimpleNamespace(case=cases, check=boom)
    summary = campaign.run(target, "planted", 20, "ci", 30.0, tmp_path)  # type: ignore[arg-type]
    (failure,) = summary.failures.values()
    assert failure.outcome.signature.startswith("ValueError at")
    assert failure.repro is not None and failure.repro.read_text() == "boom = 3\n"
