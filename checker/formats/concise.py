"""`path:line:col: CT301 message`, one finding a line (1-based columns): what editors, terminals
and CI logs turn into links."""

from __future__ import annotations

from ...diagnostics.diagnostic import render_concise
from ..analyze import Report


def render(report: Report) -> str:
    return "".join(render_concise(d) + "\n" for d in report.diagnostics)
