"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request, at
its severity after configuration (`::error`, `::warning`, `::notice`). A note with a place of its
own ("'z' was moved here") keeps it twice: in the finding's message, and as a `::notice`
annotation at that place, so the pull request shows it on its line too."""

from __future__ import annotations

from ...diagnostics.diagnostic import Diagnostic, Note, Severity, Span
from ..analyze import Report

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, span: Span, title: str, message: str) -> str:
    props = (f"file={_property(span.path)},line={span.line},col={span.col + 1},"
             f"endLine={span.end_line},endColumn={span.end_col + 1},title={_property(title)}")
    return f"::{kind} {props}::{_data(message)}"


def _note_text(note: Note) -> str:
    return f"{note.span}: note: {note.message}" if note.span is not None else note.message


def line(diag: Diagnostic) -> str:
    """The finding's own annotation; its notes follow the message, each with its place."""
    message = diag.message + "".join(f"\n{_note_text(n)}" for n in diag.notes)
    return _command(_COMMAND[diag.severity], diag.span, diag.code, message)


def note_lines(diag: Diagnostic) -> list[str]:
    """A `::notice` at each note that has a place of its own."""
    return [_command("notice", n.span, f"{diag.code} note",
                     f"{n.message} (see {diag.code} at {diag.span})")
            for n in diag.notes if n.span is not None]


def render(report: Report) -> str:
    return "".join(text + "\n" for d in report.diagnostics for text in [line(d), *note_lines(d)])
