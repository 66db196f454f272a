"""Compound statements of one host scope, path-sensitively: branches join, loops iterate. The
core (core.py) dispatches here by statement type; bodies run through `ctx.run_block`.

A state of None is a path that does not continue (return, raise, break, continue).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .context import Ctx, LoopFlow
from .expressions import assign, assign_name
from .joins import join_states
from .syntax import pattern_names
from .uses import capture, escape, read
from .values import UNKNOWN, ClosureVal, State

_MAX_PASSES = 3  # enough for a move in one iteration to reach a use in the next
_MAX_ITEMS = 8  # a literal iterable of at most this many items takes a pass per item


def if_(ctx: Ctx, st: State, node: ast.If) -> State | None:
    read(ctx, ctx.evaluate(st, node.test))
    then = ctx.run_block(st.copy(), node.body)
    other = ctx.run_block(st.copy(), node.orelse)  # `elif` is an `if` alone in `orelse`
    return join_states(ctx.world, node, then, other)


def for_(ctx: Ctx, st: State, node: ast.For | ast.AsyncFor) -> State | None:
    """A literal tuple or list iterated (`for n in (100, 128):`, the test-shapes habit) binds
    the target to each item in turn, one pass each, so each pass's launches are checked with
    that item's values; any other iterable binds an unknown value."""
    read(ctx, ctx.evaluate(st, node.iter))
    items = _literal_items(node.iter)

    def start(s: State) -> None:
        n = ctx.loops[-1][1]
        item = ctx.evaluate(s, items[n - 1]) if n <= len(items) else UNKNOWN
        assign(ctx, s, node.target, item)

    return run_loop(ctx, st, node, start, node.orelse, min_passes=len(items))


def _literal_items(expr: ast.expr) -> list[ast.expr]:
    """The items of a literal tuple or list of constants (or tuples of them), few enough to
    take a pass each; [] for anything else."""
    def constant(e: ast.expr) -> bool:
        if isinstance(e, ast.Tuple):
            return all(constant(x) for x in e.elts)
        if isinstance(e, ast.UnaryOp):
            return constant(e.operand)
        return isinstance(e, ast.Constant)

    if not isinstance(expr, (ast.Tuple, ast.List)) or len(expr.elts) > _MAX_ITEMS:
        return []
    return list(expr.elts) if all(constant(e) for e in expr.elts) else []


def while_(ctx: Ctx, st: State, node: ast.While) -> State | None:
    forever = isinstance(node.test, ast.Constant) and node.test.value is True

    def start(s: State) -> None:
        read(ctx, ctx.evaluate(s, node.test))

    return run_loop(ctx, st, node, start, node.orelse, forever)


def run_loop(ctx: Ctx, st: State, node: ast.For | ast.AsyncFor | ast.While,
             start: Callable[[State], None], orelse: Sequence[ast.stmt],
             forever: bool = False, min_passes: int = 0) -> State | None:
    """Passes over the body from the joined loop-head state until it is stable (and at least
    `min_passes` passes)."""
    loop = ctx.world.phi(("loop", node))
    head, breaks = st, []
    mark = len(ctx.facts.facts) if ctx.facts is not None else 0
    for n in range(1, _MAX_PASSES + min_passes + 1):
        if ctx.facts is not None:
            ctx.facts.rewind(mark)  # only the last pass, from the stable head, is kept
        ctx.loops.append((loop, n))
        ctx.flows.append(LoopFlow())
        entry = head.copy()
        start(entry)
        end = ctx.run_block(entry, node.body)
        flow = ctx.flows.pop()
        ctx.loops.pop()
        breaks += flow.breaks
        for cont in flow.continues:
            end = join_states(ctx.world, node, end, cont)
        joined = join_states(ctx.world, node, st, end)
        assert joined is not None
        if joined == head and n >= min_passes:
            break
        head = joined
    out: State | None = None if forever else head.copy()
    if out is not None:
        out = ctx.run_block(out, orelse)
    for b in breaks:
        out = join_states(ctx.world, node, out, b)
    return out


def try_(ctx: Ctx, st: State, node: ast.Try | ast.TryStar) -> State | None:
    # A handler may start after any statement of the body: join all of those states.
    anywhere: State | None = st.copy()
    cur: State | None = st.copy()
    for stmt in node.body:
        if cur is None:
            break
        cur = ctx.run_stmt(cur, stmt)
        anywhere = join_states(ctx.world, node, anywhere, cur)
    if cur is not None:
        cur = ctx.run_block(cur, node.orelse)
    out = cur
    for handler in node.handlers:
        h = anywhere.copy() if anywhere is not None else None
        if h is not None and handler.name is not None:
            assign_name(ctx, h, handler.name, UNKNOWN)
        out = join_states(ctx.world, handler, out, ctx.run_block(h, handler.body))
    if not node.finalbody:
        return out
    if out is None:  # every path leaves, but the finally block still runs
        ctx.run_block(anywhere, node.finalbody)
        return None
    return ctx.run_block(out, node.finalbody)


def with_(ctx: Ctx, st: State, node: ast.With | ast.AsyncWith) -> State | None:
    for item in node.items:
        escape(ctx, st, ctx.evaluate(st, item.context_expr))
        if item.optional_vars is not None:
            assign(ctx, st, item.optional_vars, UNKNOWN)
    return ctx.run_block(st, node.body)


def definition(ctx: Ctx, st: State,
                node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> State:
    """A nested def or class is its own scope; what it can see of ours escapes."""
    for deco in node.decorator_list:
        read(ctx, ctx.evaluate(st, deco))
    if isinstance(node, ast.FunctionDef) and id(node) in ctx.index.local_closures:
        assign_name(ctx, st, node.name, ClosureVal(node))
        return st
    capture(ctx, st, node)
    if node.name in ctx.globals and st.env.get(node.name) is None:
        return st  # a kernel defined here: keep the module's view of it
    assign_name(ctx, st, node.name, UNKNOWN)
    return st


def match(ctx: Ctx, st: State, node: ast.Match) -> State | None:
    read(ctx, ctx.evaluate(st, node.subject))
    out: State | None = st.copy()  # no case matched
    for case in node.cases:
        branch = st.copy()
        for name in pattern_names(case.pattern):
            branch.env[name] = UNKNOWN
        out = join_states(ctx.world, case, out, ctx.run_block(branch, case.body))
    return out
