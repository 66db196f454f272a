"""Hover text for a name in a kernel: its tile or tensor type as the compiler computed it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cutile.compiler.diagnostics import Span

from .engine import TypedName
from .positions import contains


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    span: Span


def hover_at(names: Sequence[TypedName], line: int, col: int) -> HoverInfo | None:
    """The innermost typed name under (1-based line, code-point column)."""
    hits = [n for n in names if contains(n.span, line, col)]
    if not hits:
        return None
    best = min(hits, key=lambda n: (n.span.end_line - n.span.line, n.span.end_col - n.span.col))
    return HoverInfo(f"```python\n{best.name}: {best.type_text}\n```", best.span)
