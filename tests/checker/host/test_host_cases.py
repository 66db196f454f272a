"""Annotated example programs: each `# E: CODE` line is reported, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostcheck import expected, found, run
from parity import checker_findings, kernel_lines

CASES = sorted((Path(__file__).parent / "cases").glob("*.py"))
EXAMPLES = sorted((Path(__file__).parents[3] / "examples").glob("**/*.py"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_file(path: Path) -> None:
    source = path.read_text()
    diags = run(source, str(path))
    kernels = kernel_lines(source)
    host = [d for d in diags if d.span.line not in kernels]
    assert found(host) == [e for e in expected(source) if e[0] not in kernels], "\n".join(
        f"{d.span}: {d.code} {d.message}" for d in diags)
    # expectations inside kernels are the frontend's, or found with a launch's Const values
    # (checker/host/specialize.py): the whole checker reports them
    inside = sorted(f for f in checker_findings(source, str(path)) if f[0] in kernels)
    assert inside == [e for e in expected(source) if e[0] in kernels]


def test_valid_cases_exist() -> None:
    valid = [p for p in CASES if not expected(p.read_text())]
    assert len(valid) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_check_clean(path: Path) -> None:
    diags = run(path.read_text(), str(path))
    assert diags == [], "\n".join(f"{d.span}: {d.code} {d.message}" for d in diags)
