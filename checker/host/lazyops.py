"""Running lazy ops: `.sync()`, `await`, `.then(fn)`, `.graph()` and a graph's `.sync()`."""

from __future__ import annotations

import ast
from typing import Literal

from ...compiler.hostapi import HANDLE_ATTRIBUTES
from ...compiler.launch.ops_api import (
    accepts,
    takes_words,
    then_arity_diagnostic,
)
from . import expressions as ex
from .context import Ctx
from .syntax import call_args
from .values import UNKNOWN, OpVal, PartitionVal, State, SyncResult, TupleVal, Value
from .world import OpInfo, OpKind


def method(ctx: Ctx, st: State, call: ast.Call, name: str, op: OpVal) -> Value:
    for arg in call_args(call):
        value = ex.evaluate(ctx, st, arg.value)
        ex.escape(ctx, st, value)  # the `.then` callback and friends
    info = ctx.world.ops.get(op.op)
    if name == "sync":
        return run(ctx, st, op, waited="sync")
    if name == "start" and info is not None and info.kind in ("launch", "chain"):
        ctx.world.consume(op.op)  # enqueued: running; .sync() or await later hands back
        return op
    if name == "then":
        _check_arity(ctx, call, info)
        return OpVal(_successor(ctx, st, call, op, "chain"))
    if name == "graph" and info is not None and info.kind != "graph":
        return OpVal(_successor(ctx, st, call, op, "graph"))
    if name == "replay" and info is not None and info.kind == "graph":
        return UNKNOWN
    if name in HANDLE_ATTRIBUTES:  # a tensor's method on the launch itself (CT406)
        ex.unsynced(ctx, op, "attribute", ctx.span(call.func), name)
    ex.read(ctx, op)  # something we do not model: treat the op as handed on
    return UNKNOWN


def run(ctx: Ctx, st: State, op: OpVal, waited: Literal["sync", "await"]) -> Value:
    """Waits for the op: its leases end and its arguments come back, in order (from a
    launch's or a graph's `.sync()` or `await`, a SyncResult: unpacking it into another number
    of names is CT406)."""
    world = ctx.world
    world.consume(op.op)
    st.pending = st.pending - world.members(op.op)
    info = world.ops.get(op.op)
    if info is None or info.results is None:
        return UNKNOWN
    # A Mut partition comes back as a fresh value: the name it was passed under stays moved.
    items = tuple(_fresh(ctx, v) for v in info.results)
    if info.kind == "launch":
        return SyncResult(items, info.kernel, waited)
    if info.kind == "graph":
        return SyncResult(items, info.kernel, "graph sync" if waited == "sync" else "graph await")
    return TupleVal(items)


def _fresh(ctx: Ctx, value: Value) -> Value:
    if isinstance(value, PartitionVal):
        return PartitionVal(ctx.world.fresh(), value.storage, value.dtype, value.shape,
                            value.tile, value.persistent, value.site, value.frame, value.view,
                            value.layout, value.meta, value.order)
    return value


def _successor(ctx: Ctx, st: State, call: ast.Call, op: OpVal, kind: OpKind) -> int:
    """A chain or graph that takes over the op: its run, its pending state and its leases."""
    world = ctx.world
    info = world.ops.get(op.op)
    members = world.members(op.op)
    results = info.results if info is not None and kind == "graph" else None
    label = info.kernel if info is not None else "a kernel"
    new = world.new_op(OpInfo(kind, label, ctx.span(call), results, frozenset()))
    world.consume(op.op)
    if kind == "graph":
        world.consume(new)  # captured: replays and its sync run it
    if members & st.pending:
        st.pending = (st.pending - members) | {new}
    for storage, ops in list(st.leases.items()):
        readers = ops & members
        if readers:
            st.leases[storage] = ops | {new}
            world.lease_sites[(new, storage)] = world.lease_site(min(readers), storage)
    for member in sorted(members):  # and the regions its views lease
        for storage, box, writes in world.regions.get(member, ()):
            world.regions.setdefault(new, []).append((storage, box, writes))
            world.lease_sites.setdefault((new, storage), world.lease_site(member, storage))
    return new


def _check_arity(ctx: Ctx, call: ast.Call, info: OpInfo | None) -> None:
    """CT406 when `.then(lambda ...)` cannot take the launch's results (all its positional
    arguments), as the runtime says when the chain runs."""
    if info is None or info.kind != "launch" or info.results is None or len(call.args) != 1:
        return
    fn = call.args[0]
    if not isinstance(fn, ast.Lambda) or any(d is None for d in fn.args.kw_defaults):
        return
    positional = [*fn.args.posonlyargs, *fn.args.args]
    needed = len(positional) - len(fn.args.defaults)
    star = fn.args.vararg is not None
    n = len(info.results)
    if not accepts(needed, len(positional), star, n):
        ctx.report(then_arity_diagnostic(takes_words(needed, len(positional), star), n,
                                         ctx.span(call)))
