"""Fixtures for cutile-check tests: runners for the CLI, in-process and as a subprocess."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from checker_fixtures import Result, Runner

from cutile.checker.cli import main


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> Runner:
    """Runs `main(argv)` in-process from tmp_path; `stdin=` feeds standard input."""
    monkeypatch.chdir(tmp_path)

    def run(*argv: str, stdin: str | None = None) -> Result:
        if stdin is not None:
            fake = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
            monkeypatch.setattr(sys, "stdin", fake)
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
