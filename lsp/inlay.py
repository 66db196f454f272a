"""Inlay hints: the type of each name a kernel assigns, shown after the assignment target."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cutile.diagnostics.diagnostic import Span

from .engine import TypedName
from .syntax import NameIndex, name_index


@dataclass(frozen=True)
class Hint:
    line: int  # 1-based
    col: int  # code points
    label: str


def inlay_hints(names: Sequence[TypedName], source: str, first_line: int, last_line: int,
                index_at: Callable[[int], NameIndex | None] | None = None) -> list[Hint]:
    """Hints for names bound by `=`, `op=` and `for` (not annotated ones) on lines
    `first_line..last_line` (1-based, inclusive). `index_at(line)` gives a `name_index`
    covering the line when the caller keeps them."""
    wanted = [n for n in names if first_line <= n.span.line <= last_line]
    if not wanted:
        return []
    whole = name_index(source) if index_at is None else None
    hints: dict[tuple[int, int], Hint] = {}
    for n in wanted:
        index = whole if index_at is None else index_at(n.span.line)
        if index is not None and _key(n.span) in index.targets:
            at = (n.span.end_line, n.span.end_col)
            hints[at] = Hint(*at, f": {n.type_text}")
    return [hints[k] for k in sorted(hints)]


def _key(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)
