"""Running a checker case on the interpreter: the run-time side of the parity test.

A case runs one top-level statement at a time (so one error does not hide the ones after it, as
in the checker), with its lines traced: a finding the checker reports on a line the run never
reaches (a function nobody calls) cannot be expected at run time. Run-time findings are the
codes of CutileErrors at their line, and CT305 warnings of launches dropped without running.
"""

from __future__ import annotations

import ast
import gc
import signal
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from cutile.checker.analyze import analyze_source
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.diagnostics.errors import CutileError
from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend
from cutile.runtime.ops import LaunchNeverRunWarning

Finding = tuple[int, str]  # (line, code)


@dataclass
class RunResult:
    findings: set[Finding] = field(default_factory=set)
    executed: set[int] = field(default_factory=set)
    other: list[tuple[int, str]] = field(default_factory=list)  # non-cutile exceptions
    # everything raised and warned, in order, for the golden record (test_host_golden.py)
    raised: list[Diagnostic] = field(default_factory=list)
    warned: list[tuple[int, str]] = field(default_factory=list)  # (line, message) of CT305
    # per top-level statement that raised a CutileError: its line and its new findings (at
    # their own lines, which may be a kernel's, in this file or another)
    statements: list[tuple[int, set[Finding]]] = field(default_factory=list)


def kernel_lines(source: str) -> set[int]:
    """Lines of `@ct.kernel` / `@ct.function` definitions (decorators included)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                "kernel" in ast.unparse(d) or "function" in ast.unparse(d)
                for d in node.decorator_list):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            lines |= set(range(first, (node.end_lineno or node.lineno) + 1))
    return lines


def checker_findings(source: str, path: str) -> set[Finding]:
    return {(d.span.line, d.code) for d in analyze_source(source, path)
            if d.code[:3] in ("CT1", "CT2", "CT3", "CT4")}


def _new_causes(err: CutileError, roots: set[object]) -> set[Finding]:
    """The error's findings, less uses of a moved value whose move was reported already: the
    checker reports one use per moved value (one root cause, one diagnostic); a program stops
    at the first, and the statement-by-statement run goes on."""
    out: set[Finding] = set()
    for d in err.diagnostics:
        root = d.notes[0].span if d.code in ("CT301", "CT306") and d.notes else None
        if root is None or root not in roots:
            out.add((d.span.line, d.code))
        if root is not None:
            roots.add(root)
    return out


def run_cases_file(path: Path) -> RunResult:
    """Runs the file's statements in order on the interpreter backend."""
    source = path.read_text()
    name = str(path)
    result = RunResult()
    namespace: dict[str, Any] = {"__name__": "__parity__", "__file__": name}

    def trace(frame: FrameType, event: str, _arg: object) -> Any:
        if frame.f_code.co_filename != name:
            return None
        if event == "line":
            result.executed.add(frame.f_lineno)
        return trace

    roots: set[object] = set()
    old = context.set_backend(InterpreterBackend())
    signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(60)  # a case that never ends fails instead of hanging the suite
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LaunchNeverRunWarning)
            for stmt in ast.parse(source, name).body:
                code = compile(ast.Module([stmt], []), name, "exec")
                result.executed.add(stmt.lineno)
                sys.settrace(trace)
                try:
                    exec(code, namespace)
                except CutileError as err:
                    causes = _new_causes(err, roots)
                    result.findings |= causes
                    result.statements.append((stmt.lineno, causes))
                    result.raised += err.diagnostics
                except Exception as err:
                    tb = err.__traceback__
                    line = stmt.lineno
                    while tb is not None:
                        if tb.tb_frame.f_code.co_filename == name:
                            line = tb.tb_lineno
                        tb = tb.tb_next
                    result.other.append((line, f"{type(err).__name__}: {err}"))
                finally:
                    sys.settrace(None)
            namespace.clear()
            gc.collect()  # once: dropped launches warn at once anyway (reference counting)
        for w in caught:
            if issubclass(w.category, LaunchNeverRunWarning) and w.filename == name:
                result.findings.add((w.lineno, "CT305"))
                result.warned.append((w.lineno, str(w.message)))
    finally:
        signal.alarm(0)
        context.set_backend(old)
    return result


def _too_long(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt("a parity case ran for 60 s")
