"""Simple statements: assignments, expression statements and rejected statements.

The core (core.py) runs every statement that is not compound through `simple`, with the rule
it found for the statement's type (`return`, `break` and `continue` are control flow's).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...reader.source import target_names
from ..ir import Value
from ..ops.elementwise import binary
from ..types import SlabType, TileType
from .context import Scope, TypedName, slab_hover
from .exprs import AUG_OPS
from .values import UNKNOWN, FValue, Poisoned, Reject, TupleVal, Unknown

REJECTED_SIMPLE: dict[type[ast.AST], tuple[str, str]] = {
    ast.Assert: ("assert", "; use ct.device_assert(cond, message)"),
    ast.Delete: ("del", ""),
    ast.Global: ("global", "; pass the value as a parameter"),
    ast.Nonlocal: ("nonlocal", ""),
    ast.Import: ("import", "; import at module level"),
    ast.ImportFrom: ("import", "; import at module level"),
    ast.Raise: ("raise", "; use ct.device_assert(cond, message)"),
}
REJECTED_COMPOUND: dict[type[ast.AST], tuple[str, str]] = {
    ast.Try: ("try", ""),
    ast.TryStar: ("try", ""),
    ast.With: ("with", ""),
    ast.AsyncWith: ("async with", ""),
    ast.AsyncFor: ("async for", ""),
    ast.ClassDef: ("class", "; define classes at module level, outside kernels"),
    ast.Match: ("match", "; use if/elif/else"),
}


def simple(scope: Scope, stmt: ast.stmt, rule: Callable[[Scope, Any], None]) -> None:
    """Runs a simple statement's rule; a rejected one is reported and the names it assigns
    become unknown (one root cause, one diagnostic)."""
    targets = _assigned(stmt)
    try:
        rule(scope, stmt)
    except Reject as err:
        scope.record(err)
        _poison(scope, targets)
    except Poisoned:
        _poison(scope, targets)
    else:
        return
    if isinstance(stmt, ast.Return):
        scope.returned = True  # a rejected return: the helper's result is unknown


def _poison(scope: Scope, names: list[str]) -> None:
    for n in names:
        if n not in scope.const_params:  # a rejected reassignment leaves the Const as is
            scope.env[n] = UNKNOWN


def expression(scope: Scope, stmt: ast.Expr) -> None:
    if not (isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
        scope.expr(stmt.value)  # docstrings are fine


def assignment(scope: Scope, stmt: ast.Assign) -> None:
    value = scope.expr(stmt.value)
    for t in stmt.targets:
        assign(scope, t, value)


def annotated_assignment(scope: Scope, stmt: ast.AnnAssign) -> None:
    if stmt.value is not None:
        assign(scope, stmt.target, scope.expr(stmt.value))


def augmented_assignment(scope: Scope, stmt: ast.AugAssign) -> None:
    span = scope.span(stmt)
    lhs = scope.arg(stmt.target)
    value = binary(scope.b, AUG_OPS[type(stmt.op)], lhs, scope.arg(stmt.value), span)
    assign(scope, stmt.target, value)


def pass_(scope: Scope, stmt: ast.Pass) -> None:
    pass


class BindItem(ast.stmt):
    """A statement of an unrolled loop (unrolled.py), never in source: binds the loop's
    target to one item of the tuple, at the target's place."""

    _fields = ("target",)

    def __init__(self, target: ast.expr, value: FValue) -> None:
        super().__init__()
        self.target, self.value = target, value
        ast.copy_location(self, target)


def bind_item(scope: Scope, stmt: BindItem) -> None:
    assign(scope, stmt.target, stmt.value)


def rejected(scope: Scope, stmt: ast.stmt) -> None:
    """A simple statement kernels do not have (`assert`, `del`, `import`, ...)."""
    what, hint = REJECTED_SIMPLE.get(type(stmt), (type(stmt).__name__.lower(), ""))
    scope.b.fail(msg.UNSUPPORTED_STATEMENT, scope.ctx.info.keyword_span(
        stmt, what.split()[0]), what=what, hint=hint)


def assign(scope: Scope, target: ast.expr, value: FValue) -> None:
    span = scope.span(target)
    if isinstance(target, ast.Name):
        _assign_name(scope, target.id, span, value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, Unknown):
            raise Poisoned
        if not isinstance(value, TupleVal) or len(value.items) != len(target.elts):
            scope.b.fail(msg.BAD_OPERAND, span, op="unpacking",
                         what=f"this value (it needs a tuple of {len(target.elts)})")
        for el, item in zip(target.elts, value.items, strict=True):
            assign(scope, el, item)
    else:
        scope.b.fail(msg.UNSUPPORTED_STATEMENT, span, what="assignment to attributes or items",
                     hint="; store tiles with z.store(tile)")


def _assign_name(scope: Scope, name: str, span: Span, value: FValue) -> None:
    if name in scope.const_params:
        scope.b.fail(msg.CONST_REASSIGNED, span, name=name)
    if isinstance(value, Value) and value.name is None and not value.is_const:
        value.name = name
    if isinstance(value, Value) and isinstance(value.type, TileType):
        scope.ctx.names.append(TypedName(name, span, str(value.type)))
    elif isinstance(value, Value) and isinstance(value.type, SlabType):
        scope.ctx.names.append(TypedName(name, span, slab_hover(value.type.tensor,
                                                                value.type.owner)))
    scope.env[name] = value


def compound_rejected(scope: Scope, node: ast.stmt) -> None:
    """A compound statement kernels do not have (`def`, `try`, `with`, `match`, ...)."""
    info = scope.ctx.info
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope.record(Reject(msg.NESTED_FUNCTION.at(info.name_span(node), name=node.name)))
        return
    what, hint = REJECTED_COMPOUND.get(type(node), (type(node).__name__.lower(), ""))
    span = info.keyword_span(node, what.split()[0])
    scope.record(Reject(msg.UNSUPPORTED_STATEMENT.at(span, what=what, hint=hint)))


def _assigned(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [n for t in stmt.targets for n in target_names(t)]
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign, BindItem)):
        return target_names(stmt.target)
    if isinstance(stmt, ast.Return):
        return ["__return__"]
    return []
