"""Simple statements: assignments, expression statements, return, and rejected statements."""

from __future__ import annotations

import libcst as cst

from .. import messages as msg
from ..diagnostics import Diagnostic, Span
from ..ir import Value
from ..types import TileType
from .exprs import AUG_OPS, Expressions, TypedName
from .values import UNKNOWN, FValue, Poisoned, Reject, TupleVal, Unknown, const_value

REJECTED_SIMPLE: dict[type[cst.CSTNode], tuple[str, str]] = {
    cst.Assert: ("assert", "; use ct.device_assert(cond, message)"),
    cst.Del: ("del", ""),
    cst.Global: ("global", "; pass the value as a parameter"),
    cst.Nonlocal: ("nonlocal", ""),
    cst.Import: ("import", "; import at module level"),
    cst.ImportFrom: ("import", "; import at module level"),
    cst.Raise: ("raise", "; use ct.device_assert(cond, message)"),
}
REJECTED_COMPOUND: dict[type[cst.CSTNode], tuple[str, str]] = {
    cst.Try: ("try", ""),
    cst.TryStar: ("try", ""),
    cst.With: ("with", ""),
    cst.ClassDef: ("class", "; define classes at module level, outside kernels"),
    cst.Match: ("match", "; use if/elif/else"),
}


class Statements(Expressions):
    is_kernel: bool
    const_params: set[str]
    terminated: bool  # the current block ended in break/continue
    returned: bool  # the current block ended in return

    def simple(self, small: cst.BaseSmallStatement) -> None:
        targets = _assigned(small)
        try:
            self._simple(small)
        except Reject as err:
            self.record(err)
            self._poison(targets)
        except Poisoned:
            self._poison(targets)
        else:
            return
        if isinstance(small, cst.Return):
            self.returned = True  # a rejected return: the helper's result is unknown

    def _poison(self, names: list[str]) -> None:
        for n in names:
            if n not in self.const_params:  # a rejected reassignment leaves the Const as is
                self.env[n] = UNKNOWN

    def _simple(self, small: cst.BaseSmallStatement) -> None:
        span = self.span(small)
        if isinstance(small, cst.Expr):
            if not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                self.expr(small.value)  # docstrings are fine
        elif isinstance(small, cst.Assign):
            value = self.expr(small.value)
            for t in small.targets:
                self.assign(t.target, value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.expr(small.value))
        elif isinstance(small, cst.AugAssign):
            from ..ops.elementwise import binary

            lhs = self.arg(small.target)
            value = binary(self.b, AUG_OPS[type(small.operator)], lhs, self.arg(small.value), span)
            self.assign(small.target, value)
        elif isinstance(small, cst.Return):
            self.return_(small)
        elif isinstance(small, cst.Pass):
            pass
        elif isinstance(small, (cst.Break, cst.Continue)):
            self.jump(small)  # type: ignore[attr-defined]
        else:
            what, hint = REJECTED_SIMPLE.get(type(small), (type(small).__name__.lower(), ""))
            self.b.fail(msg.UNSUPPORTED_STATEMENT, span, what=what, hint=hint)

    def assign(self, target: cst.BaseExpression, value: FValue) -> None:
        span = self.span(target)
        if isinstance(target, cst.Name):
            name = target.value
            if name in self.const_params:
                self.b.fail(msg.CONST_REASSIGNED, span, name=name)
            if isinstance(value, Value) and value.name is None and not value.is_const:
                value.name = name
            if isinstance(value, Value) and isinstance(value.type, TileType):
                self.ctx.names.append(TypedName(name, span, str(value.type)))
            self.env[name] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            if isinstance(value, Unknown):
                raise Poisoned
            if not isinstance(value, TupleVal) or len(value.items) != len(target.elements):
                self.b.fail(msg.BAD_OPERAND, span, op="unpacking",
                            what=f"this value (it needs a tuple of {len(target.elements)})")
            for el, item in zip(target.elements, value.items, strict=True):
                self.assign(el.value, item)
        else:
            self.b.fail(msg.UNSUPPORTED_STATEMENT, span, what="assignment to attributes or items",
                        hint="; store tiles with z.store(tile)")

    def return_(self, node: cst.Return) -> None:
        span = self.span(node)
        if self.is_kernel:
            if node.value is not None and not (isinstance(node.value, cst.Name) and
                                               node.value.value == "None"):
                self.b.fail(msg.KERNEL_RETURNS_VALUE, span)
            self.returned = True
            return
        value = self.expr(node.value) if node.value is not None else const_value(
            span, None, "none")
        self.env["__return__"] = value
        self.returned = True

    def compound_rejected(self, node: cst.BaseCompoundStatement) -> None:
        if isinstance(node, cst.FunctionDef):
            self.record(Reject(_diag(self, msg.NESTED_FUNCTION, node.name, name=node.name.value)))
            return
        what, hint = REJECTED_COMPOUND.get(type(node), (type(node).__name__.lower(), ""))
        if getattr(node, "asynchronous", None) is not None:
            what, hint = f"async {what}", ""
        header = _header(node)
        span = self.span(header)
        if header is node:  # `try:` has no header expression: underline its keyword
            line = self.ctx.info.source.splitlines()[span.line - 1]
            word = len(line[span.col:]) - len(line[span.col:].lstrip("abcdefghijklmnopqrstuvwxyz"))
            span = Span(span.path, span.line, span.col, span.line, span.col + max(1, word))
        self.record(Reject(Diagnostic("CT101", msg.UNSUPPORTED_STATEMENT.format(
            what=what, hint=hint), span)))


def _diag(owner: Expressions, message: msg.Message, node: cst.CSTNode,
          **kwargs: object) -> Diagnostic:
    return Diagnostic(message.code, message.format(**kwargs), owner.span(node))


def _header(node: cst.BaseCompoundStatement) -> cst.CSTNode:
    """The part of a compound statement to underline (not its whole body)."""
    for attr in ("items", "test", "subject", "name"):
        part = getattr(node, attr, None)
        if isinstance(part, cst.CSTNode):
            return part
        if isinstance(part, (list, tuple)) and part:
            return part[0]  # type: ignore[no-any-return]
    return node


def _assigned(small: cst.BaseSmallStatement) -> list[str]:
    from .scan import target_names

    if isinstance(small, cst.Assign):
        return [n for t in small.targets for n in target_names(t.target)]
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return target_names(small.target)
    if isinstance(small, cst.Return):
        return ["__return__"]
    return []
