"""libcst helpers shared by the quick fixes and the inlay hints."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from cutile.compiler.diagnostics import Span


@dataclass(frozen=True)
class Parsed:
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]

    def range(self, node: cst.CSTNode) -> CodeRange:
        return self.positions[node]

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def nodes(self, kind: type[cst.CSTNode]) -> Iterator[cst.CSTNode]:
        return (node for node in self.positions if isinstance(node, kind))


def parse(source: str) -> Parsed | None:
    """The libcst tree with positions; None for text that does not parse, or that nests too
    deeply for libcst's recursive visitors (the checker reports those as CT100)."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        return Parsed(wrapper.module, wrapper.resolve(PositionProvider))
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return None


def covers(outer: CodeRange, span: Span) -> bool:
    """Whether `outer` contains the whole of `span`."""
    start = (outer.start.line, outer.start.column)
    end = (outer.end.line, outer.end.column)
    return start <= (span.line, span.col) and (span.end_line, span.end_col) <= end


def size(r: CodeRange) -> tuple[int, int]:
    return (r.end.line - r.start.line, r.end.column - r.start.column)
