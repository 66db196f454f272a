"""cutile.compiler: the frontend (Python ast -> typed kernel IR), Tile IR backend."""

from ..diagnostics.diagnostic import Diagnostic, Note, Severity, Span, render_concise, render_full
from .api import check_module, check_source

__all__ = [
    "Diagnostic", "Note", "Severity", "Span", "check_module", "check_source", "render_concise",
    "render_full",
]
