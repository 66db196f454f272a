"""Syntactic pre-scans of statement lists (names a loop body assigns, jumps it contains).

These walk statements only: kernel expressions bind no names (the walrus is rejected).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from .source import target_names

LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _walk(body: Sequence[ast.stmt], into_loops: bool) -> Iterator[ast.stmt]:
    """Every statement in these statements, in source order (not into nested functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, SCOPES) or (isinstance(stmt, LOOPS) and not into_loops):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _walk(getattr(stmt, field, ()), into_loops)
        for handler in getattr(stmt, "handlers", ()):
            yield from _walk(handler.body, into_loops)


def assigned_names(body: Sequence[ast.stmt]) -> list[str]:
    """Names assigned anywhere in these statements, in first-assignment order."""
    names: list[str] = []
    for node in _walk(body, into_loops=True):
        found: list[str] = []
        if isinstance(node, ast.Assign):
            found = [n for t in node.targets for n in target_names(t)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For)):
            found = target_names(node.target)
        names += [n for n in found if n not in names]
    return names


def first_jump(body: Sequence[ast.stmt]) -> ast.Break | ast.Continue | None:
    """The first break or continue of this loop (not of an inner one) in its body."""
    return next((node for node in _walk(body, into_loops=False)
                 if isinstance(node, (ast.Break, ast.Continue))), None)


def has_jumps(body: Sequence[ast.stmt]) -> bool:
    """Whether a break or continue of this loop (not of an inner one) occurs in its body."""
    return first_jump(body) is not None
