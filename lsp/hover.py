"""Hover text for a name in a kernel: its tile type as the compiler computed it.

The compiler reports the names a kernel binds (assignment targets). A use of a name shows the
type of the latest binding of that name before it in the same function; every binding of a name
has the same type, or the kernel has a CT212 error.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from cutile.compiler.diagnostics import Span

from .engine import TypedName
from .positions import contains
from .syntax import Parsed, parse


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    span: Span


def hover_at(names: Sequence[TypedName], source: str, line: int, col: int) -> HoverInfo | None:
    """The type of the name under (1-based line, code-point column), if a kernel binds it."""
    if not names:
        return None
    bound = [n for n in names if contains(n.span, line, col)]
    if bound:
        return _info(bound[0], bound[0].span)
    parsed = parse(source)
    if parsed is None:
        return None
    use = _name_at(parsed, line, col)
    if use is None:
        return None
    name, where = use
    scope = _function_at(parsed, line, col)
    if scope is None:
        return None
    earlier = [n for n in names if n.name == name and _inside(n.span, scope)
               and (n.span.line, n.span.col) < (where.line, where.col)]
    if not earlier:
        return None
    latest = max(earlier, key=lambda n: (n.span.line, n.span.col))
    return _info(latest, where)


def _info(name: TypedName, span: Span) -> HoverInfo:
    return HoverInfo(f"```python\n{name.name}: {name.type_text}\n```", span)


def _name_at(parsed: Parsed, line: int, col: int) -> tuple[str, Span] | None:
    for node in parsed.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        r = parsed.range(node)
        span = Span("", r.start.line, r.start.column, r.end.line, r.end.column)
        if contains(span, line, col):
            # Python folds identifiers with NFKC ("𝔶" is "y"), and so does the compiler's ast.
            return unicodedata.normalize("NFKC", node.value), span
    return None


def _function_at(parsed: Parsed, line: int, col: int) -> tuple[int, int] | None:
    """First and last line of the innermost function around the position."""
    best: tuple[int, int] | None = None
    for node in parsed.nodes(cst.FunctionDef):
        r = parsed.range(node)
        if r.start.line <= line <= r.end.line and (best is None or r.start.line > best[0]):
            best = (r.start.line, r.end.line)
    return best


def _inside(span: Span, lines: tuple[int, int]) -> bool:
    return lines[0] <= span.line <= lines[1]
