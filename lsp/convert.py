"""cutile diagnostics as LSP diagnostics: code, link, severity overrides, related notes, UTF-16."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from cutile.diagnostics.diagnostic import Diagnostic, Severity, Span

from .links import code_url
from .options import ClientOptions
from .positions import UTF16, to_range

SOURCE = "cutile"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}


def to_lsp(diag: Diagnostic, uri: str, lines: Sequence[str], options: ClientOptions,
           encoding: str = UTF16) -> types.Diagnostic | None:
    """`diag` for the document `uri` whose analysed text is `lines`; None when switched off."""
    overridden, severity = options.severity_for(diag.code)
    if overridden and severity is None:
        return None
    if not overridden:
        severity = _SEVERITY[diag.severity]
    href = code_url(diag.code, options.docs_url)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_uri_for(note.span.path, diag.span.path, uri),
                                    range=_note_range(note.span, diag.span.path, lines, encoding)),
            message=note.message)
        for note in diag.notes if note.span is not None
    ]
    return types.Diagnostic(
        range=to_range(lines, diag.span, encoding),
        message=diag.message + "".join(f"\n{n.message}" for n in diag.notes if n.span is None),
        severity=severity,
        code=diag.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related or None,
    )


def _uri_for(path: str, own_path: str, own_uri: str) -> str:
    return own_uri if path == own_path else Path(path).resolve().as_uri()


def _note_range(span: Span, own_path: str, lines: Sequence[str], encoding: str) -> types.Range:
    if span.path == own_path:
        return to_range(lines, span, encoding)
    # Another file: its text is not at hand, so columns are code points (exact for ASCII).
    return types.Range(start=types.Position(line=span.line - 1, character=span.col),
                       end=types.Position(line=span.end_line - 1, character=span.end_col))
