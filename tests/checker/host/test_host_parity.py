"""Parity: every host-side checker case, run on the interpreter, gives the checker's codes at the
checker's lines (and runs clean where the checker is clean)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import test_host_rules
from hostcheck import Rule, with_prelude
from parity import RunResult, checker_findings, kernel_lines, run_cases_file

from cutile.checker.analyze import analyze_source

CASES = sorted((Path(__file__).parent / "cases").glob("*.py"))


def _rule_snippets() -> list[tuple[str, str]]:
    out = []
    for name, rule in inspect.getmembers(test_host_rules, inspect.isclass):
        if issubclass(rule, Rule) and rule is not Rule:
            out += [(f"{name}-valid-{i}", s) for i, s in enumerate(rule.VALID)]
            out += [(f"{name}-invalid-{i}", s) for i, s in enumerate(rule.INVALID)]
    return out


SNIPPETS = _rule_snippets()
RUNTIME_CODES: dict[str, set[str]] = {}  # code -> the cases whose run produced it


def _compare(path: Path) -> tuple[set[tuple[int, str]], RunResult]:
    source = path.read_text()
    kernels = kernel_lines(source)
    everything = checker_findings(source, str(path))
    checked = {f for f in everything if f[0] not in kernels}
    ran = run_cases_file(path)
    # kernel-side codes that both sides report: the checker in the kernel, the launch there too
    # (a case launches each kernel it expects them in)
    inside = {f for f in ran.findings if f[0] in kernels and f[1] in BOTH_SIDES_KERNEL}
    assert inside == {f for f in everything if f[0] in kernels and f[1] in BOTH_SIDES_KERNEL}
    # every kernel error a launch raises, the checker reports too: at edit time, or from the
    # launch's Const values (checker/host/specialize.py)
    raised = {f for f in ran.findings if f[0] in kernels and f[1][:3] in ("CT1", "CT2")}
    assert raised <= everything, sorted(raised - everything)
    for _line, code in ran.findings:
        RUNTIME_CODES.setdefault(code, set()).add(path.stem)
    # a snippet that calls a helper it does not define (`keep(t)`) stands for code the checker
    # cannot see (it stays silent about what such code may do): compare up to that point only
    unseen = [line for line, text in ran.other if text.startswith("NameError")]
    cutoff = min(unseen, default=10**9)
    host = {f for f in ran.findings if f[0] not in kernels and f[0] < cutoff}
    expected = {f for f in checked if f[0] in ran.executed and f[0] < cutoff}
    assert host == expected, (
        f"checker: {sorted(checked)}\nrun time: {sorted(ran.findings)}\n"
        f"other exceptions: {ran.other}")
    # other exceptions only where the checker already reported the line (a value it rejected)
    # or for names the snippets leave undefined
    flagged = {line for line, _ in checked}
    stray = [(line, text) for line, text in ran.other
             if line not in flagged and not text.startswith("NameError")]
    assert not stray, stray
    return checked, ran


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_file_parity(path: Path) -> None:
    _compare(path)


@pytest.mark.parametrize("snippet", [s for _, s in SNIPPETS], ids=[n for n, _ in SNIPPETS])
def test_rule_snippet_parity(snippet: str, tmp_path: Path) -> None:
    path = tmp_path / "snippet.py"
    path.write_text(with_prelude(snippet))
    _compare(path)


# Kernel-side codes: the frontend reports them inside kernel bodies, and the JIT runs the same
# frontend (tests/test_frontend_cases.py and the runtime tests pin them).
KERNEL_SIDE = {"CT407", "CT409"}
# Kernel-side codes the parity compares too: CT404 where the partition's extent is static, or
# a Const whose value the host code shows at the launch (checker/host/specialize.py), so the
# checker knows it (a Const it cannot know stays a run-time-only rung: tests/runtime/
# test_bounds.py pins that).
BOTH_SIDES_KERNEL = {"CT404", "CT308"}
# Found only when a launch runs: resource limits and interpreter loop steps. Runtime tests pin
# them.
RUN_TIME_ONLY = {"CT411", "CT412", "CT413"}  # CT413: whether an import was copied


def test_parity_cases_cover_every_launch_and_ownership_code() -> None:
    from hostcheck import expected

    from cutile.diagnostics.codes import CODES

    sources = [p.read_text() for p in CASES] + [with_prelude(s) for _, s in SNIPPETS]
    covered = {code for source in sources for _, code in expected(source)}
    wanted = {c for c in CODES if c[:3] in ("CT3", "CT4")} - KERNEL_SIDE - RUN_TIME_ONLY
    assert wanted <= covered, sorted(wanted - covered)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_ownership_errors_have_the_same_words_on_both_sides(path: Path) -> None:
    """CT3xx found by both sides at one line: the runtime uses the checker's wording."""
    checked = {(d.span.line, d.code): d.message
               for d in analyze_source(path.read_text(), str(path))}
    for d in run_cases_file(path).raised:
        key = (d.span.line, d.code)
        if d.code.startswith("CT3") and key in checked:
            assert checked[key] == d.message, key
