"""Simple statements: assignments, expression statements, return, and rejected statements."""

from __future__ import annotations

import ast

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ...reader.source import target_names
from ..ir import Value
from ..types import SlabType, TileType
from .exprs import AUG_OPS, Expressions, TypedName, slab_hover
from .values import UNKNOWN, FValue, Poisoned, Reject, TupleVal, Unknown, const_value

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


class Statements(Expressions):
    is_kernel: bool
    const_params: set[str]
    terminated: bool  # the current block ended in break/continue
    returned: bool  # the current block ended in return

    def simple(self, stmt: ast.stmt) -> None:
        targets = _assigned(stmt)
        try:
            self._simple(stmt)
        except Reject as err:
            self.record(err)
            self._poison(targets)
        except Poisoned:
            self._poison(targets)
        else:
            return
        if isinstance(stmt, ast.Return):
            self.returned = True  # a rejected return: the helper's result is unknown

    def exit_kernel(self, span: Span) -> None:
        """A kernel's `return` (control.py: it may sit in a branch or a loop)."""
        raise NotImplementedError

    def _poison(self, names: list[str]) -> None:
        for n in names:
            if n not in self.const_params:  # a rejected reassignment leaves the Const as is
                self.env[n] = UNKNOWN

    def _simple(self, stmt: ast.stmt) -> None:
        span = self.span(stmt)
        if isinstance(stmt, ast.Expr):
            if not (isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                self.expr(stmt.value)  # docstrings are fine
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value)
            for t in stmt.targets:
                self.assign(t, value)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value))
        elif isinstance(stmt, ast.AugAssign):
            from ..ops.elementwise import binary

            lhs = self.arg(stmt.target)
            value = binary(self.b, AUG_OPS[type(stmt.op)], lhs, self.arg(stmt.value), span)
            self.assign(stmt.target, value)
        elif isinstance(stmt, ast.Return):
            self.return_(stmt)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, (ast.Break, ast.Continue)):
            self.jump(stmt)  # type: ignore[attr-defined]
        else:
            what, hint = REJECTED_SIMPLE.get(type(stmt), (type(stmt).__name__.lower(), ""))
            self.b.fail(msg.UNSUPPORTED_STATEMENT, self.ctx.info.keyword_span(
                stmt, what.split()[0]), what=what, hint=hint)

    def assign(self, target: ast.expr, value: FValue) -> None:
        span = self.span(target)
        if isinstance(target, ast.Name):
            name = target.id
            if name in self.const_params:
                self.b.fail(msg.CONST_REASSIGNED, span, name=name)
            if isinstance(value, Value) and value.name is None and not value.is_const:
                value.name = name
            if isinstance(value, Value) and isinstance(value.type, TileType):
                self.ctx.names.append(TypedName(name, span, str(value.type)))
            elif isinstance(value, Value) and isinstance(value.type, SlabType):
                self.ctx.names.append(TypedName(name, span, slab_hover(value.type.tensor,
                                                                       value.type.owner)))
            self.env[name] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Unknown):
                raise Poisoned
            if not isinstance(value, TupleVal) or len(value.items) != len(target.elts):
                self.b.fail(msg.BAD_OPERAND, span, op="unpacking",
                            what=f"this value (it needs a tuple of {len(target.elts)})")
            for el, item in zip(target.elts, value.items, strict=True):
                self.assign(el, item)
        else:
            self.b.fail(msg.UNSUPPORTED_STATEMENT, span, what="assignment to attributes or items",
                        hint="; store tiles with z.store(tile)")

    def return_(self, node: ast.Return) -> None:
        span = self.span(node)
        if self.is_kernel:
            if node.value is not None and not (isinstance(node.value, ast.Constant) and
                                               node.value.value is None):
                self.b.fail(msg.KERNEL_RETURNS_VALUE, span)
            self.exit_kernel(span)
            return
        value = self.expr(node.value) if node.value is not None else const_value(
            span, None, "none")
        self.env["__return__"] = value
        self.returned = True

    def compound_rejected(self, node: ast.stmt) -> None:
        info = self.ctx.info
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.record(Reject(msg.NESTED_FUNCTION.at(info.name_span(node), name=node.name)))
            return
        what, hint = REJECTED_COMPOUND.get(type(node), (type(node).__name__.lower(), ""))
        span = info.keyword_span(node, what.split()[0])
        self.record(Reject(msg.UNSUPPORTED_STATEMENT.at(span, what=what, hint=hint)))


def _assigned(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [n for t in stmt.targets for n in target_names(t)]
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return target_names(stmt.target)
    if isinstance(stmt, ast.Return):
        return ["__return__"]
    return []
