"""Small readings of Python's `ast` the analysis shares: call arguments in source order, the
span of a keyword's name, the direct sub-expressions of a node, names bound by targets."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...diagnostics.diagnostic import Span
from ...reader.source import ModuleInfo


@dataclass(frozen=True)
class CallArg:
    """One argument of a call as written: `x`, `*xs`, `k=x` or `**kw`."""

    value: ast.expr  # without its star
    keyword: ast.keyword | None  # `k=x` (also `**kw`, whose `arg` is None)
    star: bool  # `*xs` or `**kw`

    @property
    def name(self) -> str | None:
        return self.keyword.arg if self.keyword is not None else None


def call_args(call: ast.Call) -> list[CallArg]:
    """Positional and keyword arguments in the order they are written (and evaluated)."""
    out = [CallArg(a.value, None, True) if isinstance(a, ast.Starred) else CallArg(a, None, False)
           for a in call.args]
    if call.keywords:
        out += [CallArg(k.value, k, k.arg is None) for k in call.keywords]
        if call.args and _pos(call.keywords[0]) < _pos(call.args[-1]):
            out.sort(key=lambda a: _pos(a.keyword if a.keyword is not None else a.value))
    return out


def _pos(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def keyword_name_span(info: ModuleInfo, keyword: ast.keyword) -> Span:
    """The `k` of `k=x`."""
    s = info.span(keyword)
    return Span(s.path, s.line, s.col, s.line, s.col + len(keyword.arg or ""))


def sub_expressions(node: ast.AST) -> list[ast.expr]:
    """The directly nested expressions of a node, in source order."""
    if isinstance(node, ast.Dict):
        out: list[ast.expr] = []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                out.append(key)
            out.append(value)
        return out
    if isinstance(node, ast.Call):
        return [node.func, *(a.value for a in call_args(node))]
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            out.append(child)
        elif not isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop,
                                    ast.boolop)):
            out += sub_expressions(child)
    return out


def pattern_names(pattern: ast.pattern) -> list[str]:
    """The names a `case` pattern binds (captures, `*rest`, `**rest`)."""
    out: list[str] = []
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
            out.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest is not None:
            out.append(node.rest)
    return out
