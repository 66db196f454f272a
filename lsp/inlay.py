"""Inlay hints: the type of each name a kernel assigns, shown after the assignment target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from cutile.compiler.diagnostics import Span

from .engine import TypedName
from .syntax import Parsed, parse


@dataclass(frozen=True)
class Hint:
    line: int  # 1-based
    col: int  # code points
    label: str


def assignment_targets(parsed: Parsed) -> set[tuple[int, int, int, int]]:
    """Positions of names bound by `=`, `+=`-style and `for` statements (not annotated ones)."""
    found: set[tuple[int, int, int, int]] = set()

    def add_target(expr: cst.BaseExpression) -> None:
        if isinstance(expr, cst.Name):
            r = parsed.range(expr)
            found.add((r.start.line, r.start.column, r.end.line, r.end.column))
        elif isinstance(expr, cst.Tuple | cst.List):
            for element in expr.elements:
                add_target(element.value)

    for node in parsed.positions:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                add_target(target.target)
        elif isinstance(node, cst.AugAssign | cst.For):
            add_target(node.target)
    return found


def inlay_hints(names: Sequence[TypedName], source: str, first_line: int,
                last_line: int) -> list[Hint]:
    """Hints for assignment targets on lines `first_line..last_line` (1-based, inclusive)."""
    wanted = [n for n in names if first_line <= n.span.line <= last_line]
    if not wanted:
        return []
    parsed = parse(source)
    if parsed is None:
        return []
    targets = assignment_targets(parsed)
    hints = {(n.span.end_line, n.span.end_col): Hint(n.span.end_line, n.span.end_col,
                                                     f": {n.type_text}")
             for n in wanted if _key(n.span) in targets}
    return [hints[k] for k in sorted(hints)]


def _key(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)
