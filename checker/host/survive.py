"""A statement the analysis fails on (a bug of the checker, CT999) costs that statement only:
its names become unknown, its launches count as handed on, and the scope's other findings stay."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from .context import Ctx
from .names import bound_names
from .uses import escape
from .values import UNKNOWN, State


@dataclass(frozen=True)
class Mark:
    """Where the walk was when a statement started."""

    loops: int
    launches: int
    flows: int
    next_id: int

    @staticmethod
    def of(ctx: Ctx) -> Mark:
        return Mark(len(ctx.loops), len(ctx.launches), len(ctx.flows), ctx.world.next_id)


def survive(ctx: Ctx, st: State, stmt: ast.stmt, err: Exception, mark: Mark) -> State:
    del ctx.loops[mark.loops:], ctx.launches[mark.launches:], ctx.flows[mark.flows:]
    span = ctx.span(stmt)
    first = Span(span.path, span.line, span.col, span.line,
                 span.end_col if span.end_line == span.line else len(ctx.info.lines[
                     span.line - 1]))
    ctx.world.report(msg.INTERNAL_ERROR.at(
        first, detail=f"host analysis failed: {type(err).__name__}: {err}"))
    world = ctx.world
    for op in [op for op in world.ops if op > mark.next_id]:
        world.escape_op(op)  # made here: never CT305
    for node in ast.walk(stmt):  # whatever the statement did to its names is not known
        if isinstance(node, ast.Name) and node.id in st.env:
            escape(ctx, st, st.env[node.id])
        for name in bound_names(node):
            if name in st.env:
                escape(ctx, st, st.env[name])
            st.env[name] = UNKNOWN
    return st
