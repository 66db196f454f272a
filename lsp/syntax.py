"""Syntax helpers for hovers, inlay hints and suppression comments: token regions and name
indexes, from Python's own tokenizer and parser. The libcst regions that fixes rewrite are in
cutile.checker.regions."""

from __future__ import annotations

import ast
import re
import tokenize
from dataclasses import dataclass

from cutile.checker.regions import Outline, outline, physical_lines, python_tree
from cutile.diagnostics.diagnostic import Span
from cutile.reader.source import analysis_guard, tokenize_text

_IDENTIFIER = re.compile(r"\w+")


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
