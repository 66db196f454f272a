r"""`path:line:col: CT301 [error] message`, one finding a line (1-based columns): what editors,
terminals and CI logs turn into links. The code stays right after the location, and the severity
(after configuration) follows it in brackets, so `^(.+):(\d+):(\d+): (CT\d+) \[(\w+)\] (.*)$`
reads every line."""

from __future__ import annotations

from ...diagnostics.diagnostic import Diagnostic
from ..analyze import Report


def line(diag: Diagnostic) -> str:
    return f"{diag.span}: {diag.code} [{diag.severity.value}] {diag.message}"


def render(report: Report) -> str:
    return "".join(line(d) + "\n" for d in report.diagnostics)
