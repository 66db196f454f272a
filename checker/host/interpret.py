"""Walking the statements of one host scope, path-sensitively: branches join, loops iterate.

A state of None is a path that does not continue (return, raise, break, continue).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from . import expressions as ex
from .context import Ctx, LoopFlow
from .joins import join_states
from .syntax import pattern_names
from .values import UNKNOWN, State

_MAX_PASSES = 3  # enough for a move in one iteration to reach a use in the next


def run_block(ctx: Ctx, st: State | None, body: Sequence[ast.stmt]) -> State | None:
    for stmt in body:
        if st is None:
            return None
        st = run_stmt(ctx, st, stmt)
    return st


def run_stmt(ctx: Ctx, st: State, stmt: ast.stmt) -> State | None:
    if isinstance(stmt, ast.If):
        return _if(ctx, st, stmt)
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return _for(ctx, st, stmt)
    if isinstance(stmt, ast.While):
        return _while(ctx, st, stmt)
    if isinstance(stmt, (ast.Try, ast.TryStar)):
        return _try(ctx, st, stmt)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return _with(ctx, st, stmt)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _definition(ctx, st, stmt)
    if isinstance(stmt, ast.Match):
        return _match(ctx, st, stmt)
    return _small(ctx, st, stmt)


def _small(ctx: Ctx, st: State, stmt: ast.stmt) -> State | None:
    from . import statements

    return statements.run_small(ctx, st, stmt)


def _if(ctx: Ctx, st: State, node: ast.If) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.test))
    then = run_block(ctx, st.copy(), node.body)
    other = run_block(ctx, st.copy(), node.orelse)  # `elif` is an `if` alone in `orelse`
    return join_states(ctx.world, node, then, other)


def _for(ctx: Ctx, st: State, node: ast.For | ast.AsyncFor) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.iter))

    def start(s: State) -> None:
        ex.assign(ctx, s, node.target, UNKNOWN)

    return run_loop(ctx, st, node, start, node.orelse)


def _while(ctx: Ctx, st: State, node: ast.While) -> State | None:
    forever = isinstance(node.test, ast.Constant) and node.test.value is True

    def start(s: State) -> None:
        ex.read(ctx, ex.evaluate(ctx, s, node.test))

    return run_loop(ctx, st, node, start, node.orelse, forever)


def run_loop(ctx: Ctx, st: State, node: ast.For | ast.AsyncFor | ast.While,
             start: Callable[[State], None], orelse: Sequence[ast.stmt],
             forever: bool = False) -> State | None:
    """Passes over the body from the joined loop-head state until it is stable."""
    loop = ctx.world.phi(("loop", node))
    head, breaks = st, []
    mark = len(ctx.facts.facts) if ctx.facts is not None else 0
    for n in range(1, _MAX_PASSES + 1):
        if ctx.facts is not None:
            ctx.facts.rewind(mark)  # only the last pass, from the stable head, is kept
        ctx.loops.append((loop, n))
        ctx.flows.append(LoopFlow())
        entry = head.copy()
        start(entry)
        end = run_block(ctx, entry, node.body)
        flow = ctx.flows.pop()
        ctx.loops.pop()
        breaks += flow.breaks
        for cont in flow.continues:
            end = join_states(ctx.world, node, end, cont)
        joined = join_states(ctx.world, node, st, end)
        assert joined is not None
        if joined == head:
            break
        head = joined
    out: State | None = None if forever else head.copy()
    if out is not None:
        out = run_block(ctx, out, orelse)
    for b in breaks:
        out = join_states(ctx.world, node, out, b)
    return out


def _try(ctx: Ctx, st: State, node: ast.Try | ast.TryStar) -> State | None:
    # A handler may start after any statement of the body: join all of those states.
    anywhere: State | None = st.copy()
    cur: State | None = st.copy()
    for stmt in node.body:
        if cur is None:
            break
        cur = run_stmt(ctx, cur, stmt)
        anywhere = join_states(ctx.world, node, anywhere, cur)
    if cur is not None:
        cur = run_block(ctx, cur, node.orelse)
    out = cur
    for handler in node.handlers:
        h = anywhere.copy() if anywhere is not None else None
        if h is not None and handler.name is not None:
            ex.assign_name(ctx, h, handler.name, UNKNOWN)
        out = join_states(ctx.world, handler, out, run_block(ctx, h, handler.body))
    if not node.finalbody:
        return out
    if out is None:  # every path leaves, but the finally block still runs
        run_block(ctx, anywhere, node.finalbody)
        return None
    return run_block(ctx, out, node.finalbody)


def _with(ctx: Ctx, st: State, node: ast.With | ast.AsyncWith) -> State | None:
    for item in node.items:
        ex.escape(ctx, st, ex.evaluate(ctx, st, item.context_expr))
        if item.optional_vars is not None:
            ex.assign(ctx, st, item.optional_vars, UNKNOWN)
    return run_block(ctx, st, node.body)


def _definition(ctx: Ctx, st: State,
                node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> State:
    """A nested def or class is its own scope; what it can see of ours escapes."""
    for deco in node.decorator_list:
        ex.read(ctx, ex.evaluate(ctx, st, deco))
    ex.capture(ctx, st, node)
    if node.name in ctx.globals and st.env.get(node.name) is None:
        return st  # a kernel defined here: keep the module's view of it
    ex.assign_name(ctx, st, node.name, UNKNOWN)
    return st


def _match(ctx: Ctx, st: State, node: ast.Match) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.subject))
    out: State | None = st.copy()  # no case matched
    for case in node.cases:
        branch = st.copy()
        for name in pattern_names(case.pattern):
            branch.env[name] = UNKNOWN
        out = join_states(ctx.world, case, out, run_block(ctx, branch, case.body))
    return out
