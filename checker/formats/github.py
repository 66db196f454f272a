"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request."""

from __future__ import annotations

from ...diagnostics.diagnostic import Diagnostic, Severity
from ..analyze import Report

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def line(diag: Diagnostic) -> str:
    s = diag.span
    props = (f"file={_property(s.path)},line={s.line},col={s.col + 1},endLine={s.end_line},"
             f"endColumn={s.end_col + 1},title={_property(diag.code)}")
    message = diag.message + "".join(f"\n{n.message}" for n in diag.notes)
    return f"::{_COMMAND[diag.severity]} {props}::{_data(message)}"


def render(report: Report) -> str:
    return "".join(line(d) + "\n" for d in report.diagnostics)
