"""cutile.compiler: the frontend (Python ast -> typed kernel IR), diagnostics, Tile IR backend."""

from .api import check_module, check_source
from .diagnostics import Diagnostic, Note, Severity, Span, render_concise, render_full

__all__ = [
    "Diagnostic", "Note", "Severity", "Span", "check_module", "check_source", "render_concise",
    "render_full",
]
