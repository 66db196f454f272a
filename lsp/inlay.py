"""Inlay hints: the type of each name a kernel assigns, shown after the assignment target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cutile.compiler.diagnostics import Span

from .engine import TypedName
from .syntax import NameIndex, name_index


@dataclass(frozen=True)
class Hint:
    line: int  # 1-based
    col: int  # code points
    label: str


def inlay_hints(names: Sequence[TypedName], source: str, first_line: int,
                last_line: int, index: NameIndex | None = None) -> list[Hint]:
    """Hints for names bound by `=`, `op=` and `for` (not annotated ones) on lines
    `first_line..last_line` (1-based, inclusive). `index` is the document's `name_index` when
    the caller keeps one."""
    wanted = [n for n in names if first_line <= n.span.line <= last_line]
    if not wanted:
        return []
    index = index or name_index(source)
    if index is None:
        return []
    hints = {(n.span.end_line, n.span.end_col): Hint(n.span.end_line, n.span.end_col,
                                                     f": {n.type_text}")
             for n in wanted if _key(n.span) in index.targets}
    return [hints[k] for k in sorted(hints)]


def _key(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)
