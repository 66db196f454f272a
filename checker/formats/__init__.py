"""Output formats of cutile-check, one module each; `FORMATS` maps a name to its renderer.

A renderer turns a whole Report into the text written to standard output."""

from __future__ import annotations

from collections.abc import Callable

from ..analyze import Report
from . import concise, full, github, json_report, sarif

Renderer = Callable[[Report], str]

FORMATS: dict[str, Renderer] = {
    "concise": concise.render,
    "full": full.render,
    "json": json_report.render,
    "github": github.render,
    "sarif": sarif.render,
}

__all__ = ["FORMATS", "Renderer"]
