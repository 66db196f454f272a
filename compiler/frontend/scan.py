"""Syntactic pre-scans of statement lists (names a loop body assigns, jumps it contains).

These walk statements only (kernel expressions bind no names: the walrus is rejected), without
libcst's visitor machinery, which rebuilds every node it visits and dominated checking time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst


def target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    return []


def _suites(stmt: cst.BaseCompoundStatement, into_loops: bool) -> Iterator[cst.BaseSuite]:
    """The statement lists nested in a compound statement (not into nested functions)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(stmt, (cst.For, cst.While)) and not into_loops:
        return
    yield stmt.body
    orelse = getattr(stmt, "orelse", None)
    while isinstance(orelse, cst.If):  # elif chains
        yield orelse.body
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        yield orelse.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    final = getattr(stmt, "finalbody", None)
    if isinstance(final, cst.Finally):
        yield final.body


def _small(suite: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement | cst.BaseCompoundStatement]:
    if isinstance(suite, cst.SimpleStatementSuite):
        yield from suite.body
        return
    for stmt in suite.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            assert isinstance(stmt, cst.BaseCompoundStatement)
            yield stmt


def _walk(body: Sequence[cst.CSTNode], into_loops: bool) -> Iterator[cst.CSTNode]:
    """Every small and compound statement in these statements, in source order."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, cst.BaseCompoundStatement):
            yield stmt
            for suite in _suites(stmt, into_loops):
                yield from _walk(list(_small(suite)), into_loops)
        else:
            yield stmt


def assigned_names(body: Sequence[cst.CSTNode]) -> list[str]:
    """Names assigned anywhere in these statements, in first-assignment order."""
    names: list[str] = []
    for node in _walk(body, into_loops=True):
        found: list[str] = []
        if isinstance(node, cst.Assign):
            found = [n for t in node.targets for n in target_names(t.target)]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For)):
            found = target_names(node.target)
        names += [n for n in found if n not in names]
    return names


def has_jumps(body: Sequence[cst.CSTNode]) -> bool:
    """Whether a break or continue of this loop (not of an inner one) occurs in its body."""
    return any(isinstance(node, (cst.Break, cst.Continue))
               for node in _walk(body, into_loops=False))
