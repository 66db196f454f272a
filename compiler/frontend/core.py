"""The evaluator's core: one walk over a kernel's (or an inlined helper's) body that sends each
expression and statement to the rule of its node type, found in the tables below.

The core sits above the topic modules and passes itself (an `Evaluator`, which is the
`context.Scope`) to each rule: `exprs` (names, literals, operators, calls into the op
registry), `stmts` (assignments and rejected statements), `control` (if, loops, break,
continue, return) and `inline` (helper calls). They call back through `scope.expr`,
`scope.statement`, `scope.body` and `scope.helper_scope`, and import nothing above them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from ...diagnostics.diagnostic import Span
from . import control, exprs, stmts
from .context import Scope
from .values import Binding, FValue


class Evaluator(Scope):
    def expr(self, node: ast.expr) -> FValue:
        span = self.span(node)
        rule = _EXPRESSIONS.get(type(node), exprs.unsupported)
        return rule(self, node, span)

    def statement(self, stmt: ast.stmt) -> None:
        compound = _COMPOUND.get(type(stmt))
        if compound is not None:
            compound(self, stmt)
        else:
            stmts.simple(self, stmt, _SIMPLE.get(type(stmt), stmts.rejected))

    def body(self, statements: Sequence[ast.stmt]) -> None:
        control.run_body(self, statements)

    def helper_scope(self, env: dict[str, Binding], call_site: Span) -> Scope:
        return Evaluator(self.ctx, env, False, call_site)


_Rule = Callable[[Scope, Any, Span], FValue]
_EXPRESSIONS: dict[type[ast.AST], _Rule] = {
    ast.Name: exprs.load_name, ast.Constant: exprs.constant, ast.Tuple: exprs.tuple_value,
    ast.Attribute: exprs.attribute, ast.BinOp: exprs.binary_op, ast.UnaryOp: exprs.unary_op,
    ast.BoolOp: exprs.logic, ast.Compare: exprs.compare, ast.Call: exprs.call,
    ast.Subscript: exprs.subscript, ast.IfExp: exprs.if_exp}
_Step = Callable[[Scope, Any], None]
_COMPOUND: dict[type[ast.AST], _Step] = {
    ast.If: control.if_, ast.For: control.for_statement, ast.While: control.while_statement,
    **{kind: stmts.compound_rejected for kind in control.COMPOUND}}
_SIMPLE: dict[type[ast.AST], _Step] = {
    ast.Expr: stmts.expression, ast.Assign: stmts.assignment,
    ast.AnnAssign: stmts.annotated_assignment, ast.AugAssign: stmts.augmented_assignment,
    ast.Pass: stmts.pass_, ast.Return: control.return_, ast.Break: control.jump,
    ast.Continue: control.jump, stmts.BindItem: stmts.bind_item}
