"""Running lazy ops: `.sync()`, `await`, `.then(fn)`, `.graph()` and a graph's `.sync()`."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Literal

from ...compiler.launch import MoveFacts, moved_diagnostic
from ...compiler.launch.moves import kernel_label
from ...compiler.launch.ops_api import (
    accepts,
    sync_unpack_diagnostic,
    takes_words,
    then_arity_diagnostic,
)
from ...diagnostics import messages as msg
from .context import Ctx
from .expressions import call_closure
from .handlers import Handlers, HostCall, escape_args
from .pdl import check_then
from .uses import ex_name, read
from .values import (
    UNKNOWN,
    KernelVal,
    Moved,
    OpVal,
    PartitionVal,
    Reported,
    State,
    SyncResult,
    TupleVal,
    Value,
    move,
)
from .world import OpInfo, OpKind

HANDLERS = Handlers()


def _op(ctx: Ctx, st: State, use: HostCall) -> tuple[OpVal, OpInfo | None]:
    """The op, after its arguments (the `.then` callback and friends) escaped."""
    escape_args(ctx, st, use.call)
    assert isinstance(use.value, OpVal)
    return use.value, ctx.world.ops.get(use.value.op)


@HANDLERS.entry("op", "sync")
@HANDLERS.entry("graph", "sync")
def sync(ctx: Ctx, st: State, use: HostCall) -> Value:
    if _moved_op(ctx, st, use):
        return UNKNOWN
    op, info = _op(ctx, st, use)
    target = ctx.index.unpacked.get(id(use.node))
    if (info is not None and info.kind == "launch" and info.results is not None
            and target is not None and len(target.elts) != len(info.results)):
        # a launch's .sync() looks at its unpacking first: it raises before the launch runs
        ctx.report(sync_unpack_diagnostic(info.kernel, len(info.results), len(target.elts),
                                          ctx.span(target), "sync"))
        ctx.world.consume(op.op)  # asked to run: no CT305, nor for a chain that took it over
        if not isinstance(use.on, (ast.Name, ast.Attribute)):  # a temporary: gone with it
            st.pending = st.pending - ctx.world.members(op.op)
        return UNKNOWN
    return run(ctx, st, op, waited="sync", use=use)


@HANDLERS.entry("op", "__await__")
@HANDLERS.entry("graph", "__await__")
def await_op(ctx: Ctx, st: State, use: HostCall) -> Value:
    if not isinstance(use.node, ast.Await):  # `op.__await__()`: driven by hand, out of sight
        return _handed_on(ctx, _op(ctx, st, use)[0])
    assert isinstance(use.value, OpVal)
    if _moved_op(ctx, st, use):
        return UNKNOWN
    result = run(ctx, st, use.value, "await", use)
    if ctx.facts is not None:
        ctx.facts.record_names(ctx.world, st, [use.node.value], ctx.span)
    return result


@HANDLERS.entry("op", "start")
def start(ctx: Ctx, st: State, use: HostCall) -> Value:
    if _moved_op(ctx, st, use):
        return UNKNOWN
    op, info = _op(ctx, st, use)
    if info is not None and info.kind in ("launch", "chain"):
        _run_callbacks(ctx, st, op)
        ctx.world.consume(op.op)  # enqueued: running; .sync() or await later hands back
        st.started = st.started | {op.op}
        return op
    return _handed_on(ctx, op)


@HANDLERS.entry("op", "then")
def then(ctx: Ctx, st: State, use: HostCall) -> Value:
    assert isinstance(use.value, OpVal)
    if _moved_op(ctx, st, use):
        return UNKNOWN
    check_then(ctx, st, use.call, use.value)  # before the callback's names escape
    callback = use.call.args[0] if use.call.args else None
    if isinstance(callback, ast.Lambda) and id(callback) in ctx.index.then_callbacks:
        op, info = use.value, ctx.world.ops.get(use.value.op)  # looked at when the chain runs
    else:
        op, info = _op(ctx, st, use)
        callback = None
    _check_arity(ctx, st, use.call, info)
    new = _successor(ctx, st, use.call, op, "chain")
    if callback is not None:
        ctx.world.callbacks[new] = (*ctx.world.callbacks.pop(op.op, ()), callback)
    return OpVal(new)


def _run_callbacks(ctx: Ctx, st: State, op: OpVal) -> None:
    """A chain runs its `.then` lambdas: their reads of outer names that are moved by then are
    CT301 there, as at run time (closures the scope calls are checked the same way)."""
    pending = st.pending
    st.pending = pending - ctx.world.members(op.op)  # the links before a callback have run
    for callback in ctx.world.callbacks.pop(op.op, ()):
        call_closure(ctx, st, callback)
    st.pending = pending


@HANDLERS.entry("op", "graph")
def graph(ctx: Ctx, st: State, use: HostCall) -> Value:
    if _moved_op(ctx, st, use):
        return UNKNOWN
    op, info = _op(ctx, st, use)
    if info is not None and info.kind in ("launch", "chain") and op.op in st.started:
        ctx.report(msg.GRAPH_OF_STARTED_OP.at(ctx.span(use.call)))
        return UNKNOWN
    if info is not None and info.kind != "graph":
        _run_callbacks(ctx, st, op)  # capturing runs the chain once
        new = _successor(ctx, st, use.call, op, "graph")
        move(st, op.op, Moved(ctx.span(use.call), "into a graph by .graph()",
                              ex_name(ctx, use.on)))
        return OpVal(new)
    return _handed_on(ctx, op)


@HANDLERS.entry("graph", "replay")
def replay(ctx: Ctx, st: State, use: HostCall) -> Value:
    if not _moved_op(ctx, st, use):
        _op(ctx, st, use)
    return UNKNOWN


def _moved_op(ctx: Ctx, st: State, use: HostCall) -> bool:
    """CT301 for an op used after it was moved, as at run time: a graph its `.sync()` or
    `await` finished, a launch or chain captured by `.graph()`."""
    assert isinstance(use.value, OpVal)
    state = st.obj(use.value.op)  # an op's id doubles as its ownership record
    if isinstance(state, Reported):
        return True  # raises again, as reported
    if not isinstance(state, Moved):
        return False
    st.objs[use.value.op] = Reported(state)  # one root cause, one diagnostic
    name = ex_name(ctx, use.on)
    ctx.report(moved_diagnostic(name, ctx.span(use.node), MoveFacts(state.how, state.site, name)))
    return True


def _handed_on(ctx: Ctx, op: OpVal) -> Value:
    """Something we do not model: the op counts as handed on."""
    read(ctx, op)
    return UNKNOWN


def run(ctx: Ctx, st: State, op: OpVal, waited: Literal["sync", "await"],
        use: HostCall | None = None) -> Value:
    """Waits for the op: its leases end and its arguments come back, in order (from a
    launch's or a graph's `.sync()` or `await`, a SyncResult: unpacking it into another number
    of names is CT406)."""
    world = ctx.world
    _run_callbacks(ctx, st, op)
    chain = world.taken.get(op.op)  # run itself: the chain that took it holds nothing of it
    world.consume(op.op)
    st.pending = st.pending - world.members(op.op)
    if chain is not None:
        st.pending = st.pending - {chain}
        st.leases = {s: ops - {chain} for s, ops in st.leases.items()}
    st.started = st.started | {op.op}
    info = world.ops.get(op.op)
    if use is not None and info is not None and info.kind == "graph":
        # finished: the graph itself is moved (`by .sync()` after an await too, as at run time)
        move(st, op.op, Moved(ctx.span(use.node), "by .sync()", ex_name(ctx, use.on)))
    if info is None or info.results is None or world.members(op.op) & world.escaped_ops:
        return UNKNOWN  # code out of sight had the op: it may have taken and moved its results
    # A Mut partition comes back as a fresh value: the name it was passed under stays moved.
    items = world.handed_back.get(op.op)
    if items is None:
        items = world.handed_back[op.op] = tuple(_fresh(ctx, v) for v in info.results)
    if info.kind == "launch":
        return SyncResult(items, info.kernel, waited)
    if info.kind == "graph":
        return SyncResult(items, info.kernel, "graph sync" if waited == "sync" else "graph await")
    return TupleVal(items)


def _fresh(ctx: Ctx, value: Value) -> Value:
    """A partition comes back as a new handle of the same tiles."""
    return replace(value, obj=ctx.world.fresh()) if isinstance(value, PartitionVal) else value


def _successor(ctx: Ctx, st: State, call: ast.Call, op: OpVal, kind: OpKind) -> int:
    """A chain or graph that takes over the op: its run, its pending state and its leases."""
    world = ctx.world
    info = world.ops.get(op.op)
    members = world.members(op.op)
    results = info.results if info is not None and kind == "graph" else None
    label = info.kernel if info is not None else "a kernel"
    new = world.new_op(OpInfo(kind, label, ctx.span(call), results, frozenset()))
    fresh = [m for m in members | {op.op} if m not in world.consumed]
    world.consume(op.op)
    if kind == "chain":  # its launches run when the chain runs (check._report_unrun)
        world.taken.update((m, new) for m in fresh)
    for member in members | {op.op}:
        world.successors[member] = new
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
        for region in world.regions.get(member, ()):
            world.regions.setdefault(new, []).append(region)
            world.lease_sites.setdefault((new, region[0]), world.lease_site(member, region[0]))
    return new


def _kernel_named(ctx: Ctx, st: State, fn: ast.expr) -> KernelVal | None:
    """`.then(kernel)`: the kernel, when `fn` names one."""
    if not isinstance(fn, ast.Name):
        return None
    value = st.env[fn.id] if fn.id in st.env else ctx.globals.get(fn.id)
    return value if isinstance(value, KernelVal) and value.tuning is None else None


def _check_kernel_link(ctx: Ctx, call: ast.Call, kernel: KernelVal, n: int) -> None:
    """`.then(kernel)` launches the kernel with the previous launch's results: CT406 for a
    parameter they leave out, as the launch at run time says."""
    if kernel.sig is None:
        return
    missing = [p for p in kernel.sig.params[n:] if p.kind != "const"]
    if missing:
        ctx.report(msg.LAUNCH_MISSING_ARG.at(ctx.span(call), kernel=kernel_label(kernel.name),
                                             param=missing[0].name), here=False)


def _check_arity(ctx: Ctx, st: State, call: ast.Call, info: OpInfo | None) -> None:
    """CT406 when `.then(lambda ...)` cannot take the launch's results (all its positional
    arguments), as the runtime says when the chain runs."""
    if info is None or info.kind != "launch" or info.results is None or len(call.args) != 1:
        return
    fn = call.args[0]
    kernel = _kernel_named(ctx, st, fn)
    if kernel is not None:
        _check_kernel_link(ctx, call, kernel, len(info.results))
        return
    if not isinstance(fn, ast.Lambda) or any(d is None for d in fn.args.kw_defaults):
        return
    positional = [*fn.args.posonlyargs, *fn.args.args]
    needed = len(positional) - len(fn.args.defaults)
    star = fn.args.vararg is not None
    n = len(info.results)
    if not accepts(needed, len(positional), star, n):
        ctx.report(then_arity_diagnostic(takes_words(needed, len(positional), star), n,
                                         ctx.span(call)), here=False)
