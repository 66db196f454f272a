"""libcst trees of the few top-level statements around a line, for the fixes that rewrite code.

Python's own parser (`ast`) is fast on any file, so statement extents come from it. libcst keeps
the exact text a fix rewrites, but it is slow and memory-hungry on big or deeply nested files (a
10,000-line file with deep calls took minutes and gigabytes), so it only ever parses the
top-level statements around a finding.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from ..diagnostics.diagnostic import Span
from ..reader.source import analysis_guard, parse_text

# Python's line breaks (str.splitlines also breaks at form feeds and other characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


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

    @cached_property
    def parents(self) -> dict[cst.CSTNode, cst.CSTNode]:
        """Each node's parent (made once per tree: fixes ask for it again and again)."""
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        stack: list[cst.CSTNode] = [self.module]
        while stack:
            node = stack.pop()
            for child in node.children:
                parents[child] = node
                stack.append(child)
        return parents


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


def covers(outer: CodeRange, span: Span) -> bool:
    """Whether `outer` contains the whole of `span`."""
    start = (outer.start.line, outer.start.column)
    end = (outer.end.line, outer.end.column)
    return start <= (span.line, span.col) and (span.end_line, span.end_col) <= end


def size(r: CodeRange) -> tuple[int, int]:
    return (r.end.line - r.start.line, r.end.column - r.start.column)
