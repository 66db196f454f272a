"""A JSON list of findings: {path, line, col, end_line, end_col, code, name, severity, message,
fields, notes}. Lines and columns are 1-based; `end_col` is exclusive, as in the other formats.
`fields` are the values the message was built from (names, dtypes, shapes), for tools that act
on a finding without parsing its text."""

from __future__ import annotations

import json
from typing import Any

from ...diagnostics.diagnostic import Diagnostic, Span
from ..analyze import Report


def location(span: Span) -> dict[str, Any]:
    return {"path": span.path, "line": span.line, "col": span.col + 1,
            "end_line": span.end_line, "end_col": span.end_col + 1}


def to_dict(diag: Diagnostic) -> dict[str, Any]:
    out = location(diag.span)
    out.update(code=diag.code, name=diag.name, severity=diag.severity.value,
               message=diag.message, fields=dict(diag.fields))
    out["notes"] = [
        {"message": n.message, **(location(n.span) if n.span else {})} for n in diag.notes]
    return out


def render(report: Report) -> str:
    return json.dumps([to_dict(d) for d in report.diagnostics], indent=2) + "\n"
