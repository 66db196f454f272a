"""One diagnostic type for the whole system: frontend, checker, runtime and language server."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .codes import CODES


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, order=True)
class Span:
    """A source range: 1-based lines, 0-based columns (in characters), end exclusive."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col + 1}"


@dataclass(frozen=True)
class Note:
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: Severity = Severity.ERROR
    notes: tuple[Note, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unregistered diagnostic code {self.code}")

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.path, self.span.line, self.span.col, self.code)


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Drops repeats (same code, span and message), keeping the first of each in order."""
    seen: set[tuple[str, Span, str]] = set()
    out: list[Diagnostic] = []
    for d in diags:
        key = (d.code, d.span, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def render_concise(diag: Diagnostic) -> str:
    """`path:line:col: CT201 message` with a 1-based column."""
    return f"{diag.span}: {diag.code} {diag.message}"


def render_full(
    diag: Diagnostic, source_lines: list[str] | None,
    lines_of: Callable[[str], list[str] | None] | None = None,
) -> str:
    """The concise line, then the source line with carets, then each note with its own frame.
    `lines_of(path)` gives the lines of other files, for notes that point into them."""
    parts = [f"{diag.span}: {diag.severity.value}[{diag.code}]: {diag.message}"]
    parts += _frame(diag.span, source_lines)
    for note in diag.notes:
        where = f"{note.span}: " if note.span else ""
        parts.append(f"  = note: {where}{note.message}")
        if note.span is None:
            continue
        if note.span.path == diag.span.path:
            parts += _frame(note.span, source_lines)
        elif lines_of is not None:
            parts += _frame(note.span, lines_of(note.span.path))
    return "\n".join(parts)


def _frame(span: Span, source_lines: list[str] | None) -> list[str]:
    if not source_lines or not 1 <= span.line <= len(source_lines):
        return []
    text = source_lines[span.line - 1].rstrip("\n")
    end = span.end_col if span.end_line == span.line else len(text)
    width = max(1, end - span.col)
    gutter = str(span.line)
    pad = " " * len(gutter)
    # Keep tabs under tabs so the carets line up however the terminal expands them.
    lead = "".join(c if c == "\t" else " " for c in text[:span.col])
    return [f"{pad} |", f"{gutter} | {text}", f"{pad} | {lead}{'^' * width}"]
