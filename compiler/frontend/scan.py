"""Syntactic pre-scans of statement lists (names a loop body assigns, jumps it contains)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    return []


class _Assigned(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def _add(self, names: list[str]) -> None:
        self.names += [n for n in names if n not in self.names]

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self._add(target_names(node.target))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def assigned_names(body: Sequence[cst.CSTNode]) -> list[str]:
    """Names assigned anywhere in these statements, in first-assignment order."""
    visitor = _Assigned()
    for stmt in body:
        stmt.visit(visitor)
    return visitor.names


class _Jumps(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Break(self, node: cst.Break) -> None:
        self.found = True

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def visit_For(self, node: cst.For) -> bool:
        return False  # jumps inside an inner loop belong to it

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def has_jumps(body: Sequence[cst.CSTNode]) -> bool:
    visitor = _Jumps()
    for stmt in body:
        stmt.visit(visitor)
    return visitor.found
