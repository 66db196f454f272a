"""What handing a value to code does, decided without evaluating anything: a value looked at
(`read`), given away (`escape`), captured by nested code, or a lazy op used as its results."""

from __future__ import annotations

import ast

from ...compiler.launch.ops_api import Use, unsynced_diagnostic
from ...diagnostics.diagnostic import Span
from .context import Ctx
from .values import ESCAPED, ClosureVal, OpVal, State, Value, ops_in, owned_in


def read(ctx: Ctx, value: Value) -> None:
    """A value looked at by code we do not model: a lazy op there counts as handed on."""
    for op in ops_in(value):
        ctx.world.escape_op(op)


def escape(ctx: Ctx, st: State, value: Value) -> None:
    """A value given to code we cannot see: never report anything about it again."""
    read(ctx, value)
    if isinstance(value, ClosureVal) and id(value.node) in ctx.index.then_callbacks:
        capture(ctx, st, value.node)  # a `.then` lambda of something that is not a chain
    for owned in owned_in(value):
        st.objs[owned.obj] = ESCAPED


def capture(ctx: Ctx, st: State, node: ast.AST) -> None:
    """A lambda, comprehension or nested def may use outer names at any time."""
    for name in ctx.index.names(node):
        if name in st.env:  # no use check: the name may be a local of the nested code
            escape(ctx, st, st.env[name])


def unsynced(ctx: Ctx, op: OpVal, use: Use, span: Span, attribute: str = "") -> None:
    """CT406: a launch (or chain) used as if it were its results; the op counts as handed on."""
    info = ctx.world.ops.get(op.op)
    if info is not None and info.kind in ("launch", "chain", "graph"):
        label = info.kernel if info.kind != "chain" else "a kernel"
        ctx.report(unsynced_diagnostic(label, use, span, attribute, info.kind == "graph"))
    ctx.world.escape_op(op.op)


def head_name(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def ex_name(ctx: Ctx, node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ctx.text(node)
