"""One diagnostic type for the whole system: frontend, checker, runtime and language server."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import cast

from .codes import CODES, Code
from .codes import Severity as Severity  # defined with the registry; used everywhere from here

# Filled in from the code's registry entry: a Diagnostic is born with its code's severity.
_FROM_REGISTRY = cast(Severity, None)
FieldValue = str | int | float | bool | None | tuple[object, ...]


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
    """One finding. `fields` are the values its message was built from (see Message.at), so tools
    such as quick fixes read them instead of parsing `message`; `template` names that message."""

    code: str
    message: str
    span: Span
    severity: Severity = _FROM_REGISTRY
    notes: tuple[Note, ...] = field(default=())
    fields: Mapping[str, FieldValue] = field(default_factory=dict, compare=False)
    template: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        entry = CODES.get(self.code)
        if entry is None:
            raise ValueError(f"unregistered diagnostic code {self.code}")
        if self.severity is _FROM_REGISTRY:
            object.__setattr__(self, "severity", entry.severity)
        if not isinstance(self.fields, MappingProxyType):
            object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    def __reduce__(self) -> tuple[object, ...]:
        # Mapping proxies do not pickle; the checker sends findings between processes.
        return (Diagnostic, (self.code, self.message, self.span, self.severity, self.notes,
                             dict(self.fields), self.template))

    @property
    def entry(self) -> Code:
        """The registry entry of this code: its name, docs and behaviour."""
        return CODES[self.code]

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.path, self.span.line, self.span.col, self.code)


def field_value(value: object) -> FieldValue:
    """How a message field is kept on its Diagnostic: plain data as is, anything else (dtypes,
    tile types) as the text the message shows, so findings stay small and picklable."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple) and all(
            v is None or isinstance(v, str | int | float | bool) for v in value):
        return value
    return str(value)


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
    width = max(1, sum(map(_columns, text[span.col:end])))
    gutter = str(span.line)
    pad = " " * len(gutter)
    # Keep tabs under tabs so the carets line up however the terminal expands them; a wide
    # character (CJK, emoji) takes two columns of a terminal, a combining mark none.
    lead = "".join(c if c == "\t" else " " * _columns(c) for c in text[:span.col])
    return [f"{pad} |", f"{gutter} | {text}", f"{pad} | {lead}{'^' * width}"]


def _columns(char: str) -> int:
    """The terminal columns one character takes (what ruff's unicode-width measures)."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
