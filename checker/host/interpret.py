"""Walking the statements of one host scope, path-sensitively: branches join, loops iterate.

A state of None is a path that does not continue (return, raise, break, continue).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from . import expressions as ex
from .context import Ctx, LoopFlow
from .joins import join_states
from .values import UNKNOWN, State

Stmt = cst.BaseStatement | cst.BaseSmallStatement
_MAX_PASSES = 3  # enough for a move in one iteration to reach a use in the next


def run_block(ctx: Ctx, st: State | None, body: Sequence[Stmt]) -> State | None:
    for stmt in body:
        if st is None:
            return None
        st = run_stmt(ctx, st, stmt)
    return st


def _body(node: cst.BaseSuite) -> Sequence[Stmt]:
    return node.body


def run_stmt(ctx: Ctx, st: State, stmt: Stmt) -> State | None:
    if isinstance(stmt, cst.SimpleStatementLine):
        return run_block(ctx, st, stmt.body)
    if isinstance(stmt, cst.If):
        return _if(ctx, st, stmt)
    if isinstance(stmt, cst.For):
        return _for(ctx, st, stmt)
    if isinstance(stmt, cst.While):
        return _while(ctx, st, stmt)
    if isinstance(stmt, cst.Try):
        return _try(ctx, st, stmt)
    if isinstance(stmt, cst.With):
        return _with(ctx, st, stmt)
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return _definition(ctx, st, stmt)
    if isinstance(stmt, cst.Match):
        return _match(ctx, st, stmt)
    return _small(ctx, st, stmt)


def _small(ctx: Ctx, st: State, stmt: Stmt) -> State | None:
    from . import statements

    return statements.run_small(ctx, st, stmt)


def _if(ctx: Ctx, st: State, node: cst.If) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.test))
    then = run_block(ctx, st.copy(), _body(node.body))
    other: State | None = st.copy()
    if isinstance(node.orelse, cst.If):
        assert other is not None
        other = _if(ctx, other, node.orelse)
    elif isinstance(node.orelse, cst.Else):
        other = run_block(ctx, other, _body(node.orelse.body))
    return join_states(ctx.world, node, then, other)


def _for(ctx: Ctx, st: State, node: cst.For) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.iter))

    def start(s: State) -> None:
        ex.assign(ctx, s, node.target, UNKNOWN)

    return run_loop(ctx, st, node, start, node.orelse)


def _while(ctx: Ctx, st: State, node: cst.While) -> State | None:
    forever = isinstance(node.test, cst.Name) and node.test.value == "True"

    def start(s: State) -> None:
        ex.read(ctx, ex.evaluate(ctx, s, node.test))

    return run_loop(ctx, st, node, start, node.orelse, forever)


def run_loop(ctx: Ctx, st: State, node: cst.For | cst.While, start: Callable[[State], None],
             orelse: cst.Else | None, forever: bool = False) -> State | None:
    """Passes over the body from the joined loop-head state until it is stable."""
    loop = ctx.world.phi(("loop", node))
    head, breaks = st, []
    for n in range(1, _MAX_PASSES + 1):
        ctx.loops.append((loop, n))
        ctx.flows.append(LoopFlow())
        entry = head.copy()
        start(entry)
        end = run_block(ctx, entry, _body(node.body))
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
    if out is not None and orelse is not None:
        out = run_block(ctx, out, _body(orelse.body))
    for b in breaks:
        out = join_states(ctx.world, node, out, b)
    return out


def _try(ctx: Ctx, st: State, node: cst.Try) -> State | None:
    # A handler may start after any statement of the body: join all of those states.
    anywhere: State | None = st.copy()
    cur: State | None = st.copy()
    for stmt in _body(node.body):
        if cur is None:
            break
        cur = run_stmt(ctx, cur, stmt)
        anywhere = join_states(ctx.world, node, anywhere, cur)
    if cur is not None and node.orelse is not None:
        cur = run_block(ctx, cur, _body(node.orelse.body))
    out = cur
    for handler in node.handlers:
        h = anywhere.copy() if anywhere is not None else None
        if h is not None and handler.name is not None:
            ex.assign(ctx, h, handler.name.name, UNKNOWN)
        out = join_states(ctx.world, handler, out, run_block(ctx, h, _body(handler.body)))
    if node.finalbody is None:
        return out
    if out is None:  # every path leaves, but the finally block still runs
        run_block(ctx, anywhere, _body(node.finalbody.body))
        return None
    return run_block(ctx, out, _body(node.finalbody.body))


def _with(ctx: Ctx, st: State, node: cst.With) -> State | None:
    for item in node.items:
        ex.escape(ctx, st, ex.evaluate(ctx, st, item.item))
        if item.asname is not None:
            ex.assign(ctx, st, item.asname.name, UNKNOWN)
    return run_block(ctx, st, _body(node.body))


def _definition(ctx: Ctx, st: State, node: cst.FunctionDef | cst.ClassDef) -> State:
    """A nested def or class is its own scope; what it can see of ours escapes."""
    for deco in node.decorators:
        ex.read(ctx, ex.evaluate(ctx, st, deco.decorator))
    ex.capture(ctx, st, node)
    if node.name.value in ctx.globals and st.env.get(node.name.value) is None:
        return st  # a kernel defined here: keep the module's view of it
    ex.assign(ctx, st, node.name, UNKNOWN)
    return st


def _match(ctx: Ctx, st: State, node: cst.Match) -> State | None:
    ex.read(ctx, ex.evaluate(ctx, st, node.subject))
    out: State | None = st.copy()  # no case matched
    for case in node.cases:
        branch = st.copy()
        for name in ex.names_in(case.pattern):
            branch.env[name] = UNKNOWN
        out = join_states(ctx.world, case, out, run_block(ctx, branch, _body(case.body)))
    return out
