"""SARIF 2.1.0 (the format code-scanning services ingest). The schema ships next to this module
and the tests validate against it. SARIF lines and columns are 1-based; endColumn is exclusive."""

from __future__ import annotations

import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

from ...diagnostics.codes import CODES
from ...diagnostics.diagnostic import Diagnostic, Severity, Span
from ..analyze import Report

SCHEMA_URI = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
              "sarif-schema-2.1.0.json")
SCHEMA_FILE = Path(__file__).with_name("sarif-2.1.0.schema.json")
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_RULE_INDEX = {code: i for i, code in enumerate(CODES)}


def tool_version() -> str:
    try:
        return version("cutile")
    except PackageNotFoundError:
        return "0+unknown"


def _rules() -> list[dict[str, Any]]:
    return [{
        "id": c.code,
        "name": c.name,
        "shortDescription": {"text": c.summary},
        "fullDescription": {"text": c.doc},
        "help": {"text": f"{c.doc}\n\ncutile-check --explain {c.code}"},
        "defaultConfiguration": {"level": _LEVEL[c.severity]},
    } for c in CODES.values()]


def _uri(path: str) -> str:
    """A relative URI for files below the working directory, else a file:// URI; spaces,
    `%`, non-ASCII characters and bytes a file name holds that are not UTF-8 are
    percent-encoded (as file:// URIs encode them)."""
    rel = os.path.relpath(os.path.abspath(path))
    if not rel.startswith(os.pardir) and not os.path.isabs(path):
        return quote_from_bytes(os.fsencode(Path(rel).as_posix()), safe="/")
    return Path(os.path.abspath(path)).as_uri()


def _location(span: Span, message: str | None = None) -> dict[str, Any]:
    region = {"startLine": max(1, span.line), "startColumn": span.col + 1,
              "endLine": max(span.line, span.end_line), "endColumn": span.end_col + 1}
    if region["endLine"] == region["startLine"] and region["endColumn"] < region["startColumn"]:
        region["endColumn"] = region["startColumn"]
    out: dict[str, Any] = {"physicalLocation": {
        "artifactLocation": {"uri": _uri(span.path)}, "region": region}}
    if message is not None:
        out["message"] = {"text": message}
    return out


def _result(diag: Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": diag.code,
        "ruleIndex": _RULE_INDEX[diag.code],
        "level": _LEVEL[diag.severity],
        "message": {"text": "\n".join(
            [diag.message] + [n.message for n in diag.notes if n.span is None])},
        "locations": [_location(diag.span)],
    }
    related = [_location(n.span, n.message) for n in diag.notes if n.span is not None]
    for i, loc in enumerate(related):
        loc["id"] = i
    if related:
        out["relatedLocations"] = related
    return out


def document(report: Report) -> dict[str, Any]:
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cutile-check",
                "version": tool_version(),
                "rules": _rules(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": [_result(d) for d in report.diagnostics],
        }],
    }


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2) + "\n"
