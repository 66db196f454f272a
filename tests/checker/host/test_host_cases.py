"""Annotated example programs: each `# E: CODE` line is reported, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostcheck import expected, found, run

CASES = sorted((Path(__file__).parent / "cases").glob("*.py"))
EXAMPLES = sorted((Path(__file__).parents[3] / "examples").glob("**/*.py"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_file(path: Path) -> None:
    source = path.read_text()
    diags = run(source, str(path))
    assert found(diags) == expected(source), "\n".join(
        f"{d.span}: {d.code} {d.message}" for d in diags)


def test_valid_cases_exist() -> None:
    valid = [p for p in CASES if not expected(p.read_text())]
    assert len(valid) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_check_clean(path: Path) -> None:
    diags = run(path.read_text(), str(path))
    assert diags == [], "\n".join(f"{d.span}: {d.code} {d.message}" for d in diags)
