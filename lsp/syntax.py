"""Syntax helpers shared by hovers, inlay hints and quick fixes.

Python's own parser (`ast`) is fast on any file, so positions of names, functions and assignment
targets come from it. libcst keeps the exact text the quick fixes rewrite, but it is slow and
memory-hungry on big or deeply nested files (a 10,000-line file with deep calls took minutes and
gigabytes), so it only ever parses the few top-level statements around a diagnostic.
"""

from __future__ import annotations

import ast
import re
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from cutile.diagnostics.diagnostic import Span
from cutile.reader.source import analysis_guard, parse_text, tokenize_text

# Python's line breaks (str.splitlines also breaks at form feeds and other characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_IDENTIFIER = re.compile(r"\w+")


@dataclass(frozen=True)
class Parsed:
    """A libcst tree of lines `first_line..` of a document; ranges are in document lines."""

    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    first_line: int = 1

    def range(self, node: cst.CSTNode) -> CodeRange:
        r = self.positions[node]
        if self.first_line == 1:
            return r
        shift = self.first_line - 1
        return CodeRange(CodePosition(r.start.line + shift, r.start.column),
                         CodePosition(r.end.line + shift, r.end.column))

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def nodes(self, kind: type[cst.CSTNode]) -> Iterator[cst.CSTNode]:
        return (node for node in self.positions if isinstance(node, kind))


def parse(source: str, first_line: int = 1) -> Parsed | None:
    """The libcst tree with positions; None for text that does not parse, or that nests too
    deeply for libcst's recursive visitors (the checker reports those as CT100)."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        return Parsed(wrapper.module, wrapper.resolve(PositionProvider), first_line)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return None


def physical_lines(source: str) -> list[str]:
    """The lines as Python numbers them, each with its line break."""
    return _LINE.findall(source)


def python_tree(source: str) -> ast.Module | None:
    try:
        with analysis_guard():
            return parse_text(source)  # the text alone: no file, no warnings
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass(frozen=True)
class Outline:
    """The line extents of a module's top-level statements (decorators included)."""

    lines: tuple[str, ...]
    statements: tuple[tuple[int, int], ...]

    def region(self, first: int, last: int) -> tuple[int, int] | None:
        """The smallest run of whole top-level statements covering lines `first..last`."""
        lo, hi = first, last
        inside = [s for s in self.statements if s[0] <= hi and lo <= s[1]]
        if not inside:
            return None
        while True:  # statements sharing a line (`a = 1; b = (`) widen the region
            lo2 = min(lo, *(s[0] for s in inside))
            hi2 = max(hi, *(s[1] for s in inside))
            if (lo2, hi2) == (lo, hi):
                return lo, hi
            lo, hi = lo2, hi2
            inside = [s for s in self.statements if s[0] <= hi and lo <= s[1]]

    def text(self, region: tuple[int, int]) -> str:
        return "".join(self.lines[region[0] - 1:region[1]])


def outline(source: str, tree: ast.Module | None = None) -> Outline | None:
    """None when Python cannot parse the file (no fix applies to it then)."""
    tree = tree or python_tree(source)
    if tree is None:
        return None
    spans = []
    for stmt in tree.body:
        starts = [stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())]
        spans.append((min(starts), stmt.end_lineno or stmt.lineno))
    return Outline(tuple(physical_lines(source)), tuple(spans))


def parse_region(source: str, first: int, last: int, where: Outline | None = None
                 ) -> Parsed | None:
    """libcst's tree of the top-level statements around lines `first..last`."""
    where = where or outline(source)
    region = where.region(first, last) if where is not None else None
    if where is None or region is None:
        return None
    return parse(where.text(region), region[0])


def region_tokens(source: str, line: int, where: Outline | None = None
                  ) -> list[tokenize.TokenInfo] | None:
    """The tokens of the top-level statements around `line`, in document lines."""
    where = where or outline(source)
    if where is None:
        return tokens(source)
    # A line outside every statement holds only a comment or nothing: it tokenizes alone.
    region = where.region(line, line) or (line, line)
    shift = region[0] - 1
    found = tokens(where.text(region))
    if found is None:
        return None
    return [t._replace(start=(t.start[0] + shift, t.start[1]), end=(t.end[0] + shift, t.end[1]))
            for t in found]


def tokens(source: str) -> list[tokenize.TokenInfo] | None:
    found, complete = tokenize_text(source)
    return found if complete else None


@dataclass(frozen=True)
class NameIndex:
    """Where names, functions and plain assignment targets are (code-point columns)."""

    names: tuple[tuple[str, Span], ...]  # identifiers as Python folds them (NFKC)
    functions: tuple[tuple[int, int], ...]  # first and last line of each def
    targets: frozenset[tuple[int, int, int, int]]  # names bound by =, op= and for

    def name_at(self, line: int, col: int) -> tuple[str, Span] | None:
        return next(((n, s) for n, s in self.names
                     if (s.line, s.col) <= (line, col) <= (s.end_line, s.end_col)), None)

    def function_at(self, line: int) -> tuple[int, int] | None:
        """The innermost function around `line`."""
        around = [f for f in self.functions if f[0] <= line <= f[1]]
        return max(around, default=None)


def name_index(source: str, first_line: int = 1) -> NameIndex | None:
    """The index of `source`, which starts at line `first_line` of its document."""
    with analysis_guard():  # no collections while walking hundreds of thousands of nodes
        return _index(source, first_line)


def _index(source: str, first_line: int) -> NameIndex | None:
    tree = python_tree(source)
    if tree is None:
        return None
    cols = _Columns(physical_lines(source), first_line - 1)
    names: list[tuple[str, Span]] = []
    functions: list[tuple[int, int]] = []
    targets: set[tuple[int, int, int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.append((node.id, cols.span(node)))
        elif isinstance(node, ast.arg):
            names.append((node.arg, cols.word(node.lineno, node.col_offset)))
        elif isinstance(node, ast.Attribute):
            end = cols.col(node.end_lineno or node.lineno, node.end_col_offset or 0)
            line = node.end_lineno or node.lineno
            line += cols.shift
            names.append((node.attr, Span("", line, end - len(node.attr), line, end)))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append((node.lineno + cols.shift,
                              (node.end_lineno or node.lineno) + cols.shift))
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _add_targets(target, cols, targets)
        elif isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor):
            _add_targets(node.target, cols, targets)
    names.sort(key=lambda item: (item[1].line, item[1].col))
    return NameIndex(tuple(names), tuple(functions), frozenset(targets))


def _add_targets(expr: ast.expr, cols: _Columns, found: set[tuple[int, int, int, int]]) -> None:
    if isinstance(expr, ast.Name):
        s = cols.span(expr)
        found.add((s.line, s.col, s.end_line, s.end_col))
    elif isinstance(expr, ast.Tuple | ast.List):
        for element in expr.elts:
            _add_targets(element, cols, found)


class _Columns:
    """ast's UTF-8 byte columns as code points."""

    def __init__(self, lines: list[str], shift: int) -> None:
        self.lines = lines
        self.shift = shift  # document line of the text's line 1, less one

    def col(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "replace"))

    def span(self, node: ast.expr) -> Span:
        end_line = node.end_lineno or node.lineno
        return Span("", node.lineno + self.shift, self.col(node.lineno, node.col_offset),
                    end_line + self.shift, self.col(end_line, node.end_col_offset or 0))

    def word(self, line: int, byte_col: int) -> Span:
        """The identifier that starts at the position."""
        col = self.col(line, byte_col)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        match = _IDENTIFIER.match(text, col)
        end = match.end() if match else col
        return Span("", line + self.shift, col, line + self.shift, end)


def covers(outer: CodeRange, span: Span) -> bool:
    """Whether `outer` contains the whole of `span`."""
    start = (outer.start.line, outer.start.column)
    end = (outer.end.line, outer.end.column)
    return start <= (span.line, span.col) and (span.end_line, span.end_col) <= end


def size(r: CodeRange) -> tuple[int, int]:
    return (r.end.line - r.start.line, r.end.column - r.start.column)
