"""Calls in host code that are not the host API (compiler/hostapi, evaluated by the core):
kernel launches, helpers that partition their arguments, builtins, and everything else."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import cast

from ...compiler.frontend.params import KernelSignature, ParamSpec
from ...compiler.hostapi import HANDLE_ATTRIBUTES, USE_CODES
from ...compiler.launch import ArgFacts, MoveFacts, contract_for, moved_diagnostic
from ...compiler.launch.contract import At
from ...compiler.launch.facts import NUMBER_KINDS, argument_name, array_text, list_facts
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Note, Span
from .autotune import as_tuned, tuned
from .context import Ctx, LaunchFrame
from .expressions import call_closure
from .handlers import escape_args, read_args
from .helpers import ParamMove
from .launches import Arg, CallLocator, facts, kernel_label
from .leases import lease, region_in_use
from .numpy_arrays import astype, numpy_array
from .places import key_of, ran_unseen
from .specialize import report_specialized
from .syntax import call_args, keyword_name_span
from .uses import escape, ex_name, read, unsynced
from .values import (
    DOUBTFUL,
    UNKNOWN,
    ClosureVal,
    Doubtful,
    HostArrayVal,
    IntVal,
    KernelVal,
    ModuleVal,
    Moved,
    OpVal,
    PartitionVal,
    Reported,
    State,
    TensorVal,
    Value,
    move,
)
from .world import OpInfo

# Builtins that only look at their arguments (they keep no reference and run nothing).
_READ_BUILTINS = {"print", "len", "repr", "str", "isinstance", "id", "type", "bool", "hash",
                  "format", "min", "max"}
_INT_BUILTINS: dict[str, Callable[[Iterable[int]], int]] = {"min": min, "max": max}
# Builtins that run no code of the program's own (its attributes stay as they are).
_PURE_BUILTINS = {"range", "int", "float", "abs", "round", "divmod", "enumerate", "zip",
                  "tuple", "list", "dict", "set"}


def call_function(ctx: Ctx, st: State, call: ast.Call) -> Value:
    """`f(args)` where `f` is not an attribute: a kernel launch, a helper that partitions,
    a builtin, or anything else."""
    func = call.func
    callee = ctx.evaluate(st, func)
    if isinstance(callee, KernelVal):
        return launch(ctx, st, call, callee)
    if isinstance(callee, ClosureVal):
        result = _plain_call(ctx, st, call, UNKNOWN)
        call_closure(ctx, st, callee.node)
        return result
    return _plain_call(ctx, st, call, callee)


def _plain_call(ctx: Ctx, st: State, call: ast.Call, callee: Value) -> Value:
    func = call.func
    if isinstance(func, ast.Name) and callee == UNKNOWN:
        moves = ctx.index.movers(func.id, ctx.globals)
        if moves:
            return _moving_helper(ctx, st, call, moves)
    builtin = func.id if isinstance(func, ast.Name) and callee == UNKNOWN else None
    reads = builtin in _READ_BUILTINS
    mark = ctx.raised
    values: list[Value] = []
    for arg in call_args(call):
        value = ctx.evaluate(st, arg.value)
        values.append(value if not arg.star and arg.name is None else UNKNOWN)
        if reads:
            read(ctx, value)
        else:
            escape(ctx, st, value)  # an unknown function may keep or move it: stay silent
    if not (reads or builtin in _PURE_BUILTINS):
        _ran_unseen(ctx, st, call, mark)
    if builtin in _INT_BUILTINS and values and all(
            isinstance(v, IntVal) for v in values):  # `min(k + b, n)` bounds
        return IntVal(_INT_BUILTINS[builtin](cast(IntVal, v).value for v in values))
    return UNKNOWN


def autotune_call(ctx: Ctx, st: State, call: ast.Call) -> Value:
    """`ct.autotune(kernel, configs=...)` in host code: the kernel, launched as autotuned."""
    values = [ctx.evaluate(st, a.value) for a in call_args(call)]
    for value in values:
        read(ctx, value)
    kernel = values[0] if len(call.args) == 1 and not isinstance(call.args[0], ast.Starred) \
        else None
    return tuned(ctx.info, call, kernel) if isinstance(kernel, KernelVal) else UNKNOWN


def _moving_helper(ctx: Ctx, st: State, call: ast.Call, moves: dict[int, ParamMove]
                   ) -> Value:
    """A call of a helper that certainly moves some parameters (helpers.py): those arguments
    are moved as the helper moves them, at this call; the rest are handed on unseen."""
    assert isinstance(call.func, ast.Name)
    helper = call.func.id
    mark = ctx.raised
    for i, arg in enumerate(call_args(call)):
        how = moves.get(i) if not arg.star and arg.name is None else None
        if how is not None and how.kernel is not None and _moved_by_earlier_call(
                ctx, st, arg.value, helper, how.param):
            continue
        value = ctx.evaluate(st, arg.value)
        if how is None or not _helper_moves(ctx, st, how, value, arg.value, helper):
            escape(ctx, st, value)
    _ran_unseen(ctx, st, call, mark)
    return UNKNOWN


# Libraries whose functions never run the program's own code (nor rebind its attributes).
_LIBRARIES = ("cutile", "numpy", "math")


def _ran_unseen(ctx: Ctx, st: State, call: ast.Call, mark: int) -> None:
    """A call of code the analysis does not see, once its arguments are evaluated: it may
    rebind any attribute (places.py), unless an argument raised (so it never ran) or it is a
    library's that cannot."""
    library = (ctx.info.qualified(call.func) or "").partition(".")[0]
    if ctx.raised == mark and library not in _LIBRARIES:
        ran_unseen(ctx, st)


def _helper_moves(ctx: Ctx, st: State, how: ParamMove, value: Value, expr: ast.expr,
                  helper: str) -> bool:
    """Moves the argument as the helper does; False when its value is not what the helper's
    move takes (then the call may raise inside: stay silent)."""
    name = ex_name(ctx, expr)
    if how.kernel is None:  # partitioned: the runtime names the helper's call (its parent)
        if not isinstance(value, TensorVal) or st.leases.get(value.storage, frozenset()) & (
                st.pending):  # CT303 inside
            return False
        move(st, value.obj, Moved(ctx.span(expr), f"by .partition() in '{helper}'", name, None,
                                  tuple(ctx.loops)))
        return True
    wanted = PartitionVal if how.kind == "mut" else TensorVal
    if not isinstance(value, wanted) or how.site is None:
        return False
    move(st, value.obj, Moved(ctx.span(how.site), f"into a launch of "
                              f"{kernel_label(how.kernel)}", name, by_call=helper))
    return True


def _moved_by_earlier_call(ctx: Ctx, st: State, expr: ast.expr, helper: str,
                           param: str) -> bool:
    """CT301 at the argument of a helper call when an earlier call of the same helper moved
    it inside (into its launch), as the runtime reports that call."""
    value = st.env.get(expr.id) if isinstance(expr, ast.Name) else None
    if not isinstance(value, (TensorVal, PartitionVal)):
        return False
    state = st.obj(value.obj)
    if not (isinstance(state, Moved) and state.by_call == helper):
        return False
    st.objs[value.obj] = Reported(state)  # one root cause, one diagnostic
    facts = MoveFacts(f"{state.how} by an earlier call of '{helper}'", state.site, param)
    ctx.report(moved_diagnostic(ex_name(ctx, expr), ctx.span(expr), facts))
    return True


# kernel methods that return the same kernel compiled or launched otherwise (runtime/kernel.py)
SAME_KERNEL = frozenset({"with_hints", "dependent"})


def call_method(ctx: Ctx, st: State, call: ast.Call, func: ast.Attribute,
                receiver: Value) -> Value:
    """`x.name(args)` where it is no entry of the host API: a kernel of an imported module,
    a tensor's method on a lazy op (CT406), a NumPy array made where the analysis sees its
    shape and dtype, or a method the analysis does not follow."""
    array = numpy_array(ctx, st, call)
    if array is not None:
        return array
    if isinstance(receiver, HostArrayVal) and func.attr == "astype":
        return astype(ctx, st, receiver, call)
    if isinstance(receiver, OpVal):
        escape_args(ctx, st, call)
        if func.attr in HANDLE_ATTRIBUTES:  # a tensor's method on the launch itself (CT406)
            unsynced(ctx, receiver, "attribute", ctx.span(func), func.attr)
        read(ctx, receiver)  # something we do not model: treat the op as handed on
        return UNKNOWN
    if isinstance(receiver, ModuleVal):
        kernel = ctx.evaluate(st, func)
        if isinstance(kernel, KernelVal):
            return launch(ctx, st, call, kernel)
    if isinstance(receiver, KernelVal) and func.attr in SAME_KERNEL:
        read_args(ctx, st, call)
        return receiver  # its launches move and lease as the kernel's own
    reads = isinstance(receiver, (TensorVal, PartitionVal, KernelVal))  # k.compile()
    mark = ctx.raised
    (read_args if reads else escape_args)(ctx, st, call)
    if not reads:
        _ran_unseen(ctx, st, call, mark)
    return UNKNOWN


def launch(ctx: Ctx, st: State, call: ast.Call, kernel: KernelVal) -> Value:
    """`kernel(args)`: check the arguments, then move Mut partitions and lease inputs."""
    frame = LaunchFrame(ctx.span(call))
    ctx.launches.append(frame)
    try:
        positional, keywords, starred = _launch_args(ctx, st, call, frame)
    finally:
        ctx.launches.pop()
    sig = kernel.sig
    if kernel.tuning is not None and sig is not None:
        positional, keywords = as_tuned(kernel.tuning, sig, positional, keywords, frame.span)
    given = positional + [a for _, _, a in keywords]
    if frame.failed:  # an argument raised: the launch is never made, nor its moved ones used
        for _mf, obj, moved in frame.moves.values():
            st.objs[obj] = moved
        for arg in given:
            read(ctx, arg.value)
        return UNKNOWN
    said = {span for span, (_mf, _obj, was) in frame.moves.items() if isinstance(was, Reported)}
    if sig is None or starred:
        for span, (mf, _obj, _moved) in frame.moves.items():
            if span not in said:
                ctx.report(moved_diagnostic(_name_at(given, span), span, mf))
        for arg in given:
            escape(ctx, st, arg.value)
        return OpVal(_new_op(ctx, st, call, kernel.name, None))
    loc = CallLocator(frame.span, positional, keywords)
    contract = contract_for(sig)
    verdict = contract.check(
        [_facts(frame, a, contract.param(i)) for i, a in enumerate(positional)],
        [(k, _facts(frame, a, contract.param(k))) for k, _, a in keywords], loc)
    # a doubtful argument may raise CT301 before anything the verdict says: say nothing then
    doubtful = any(isinstance(a.value, Doubtful) for a in given)
    if verdict.diags and not doubtful:  # less the moves reported at earlier uses
        return _reject(ctx, [d for d in verdict.diags if d.span not in said
                             or d.code not in USE_CODES], given)
    passed = _passed(sig.params, verdict.where, given, loc)
    if doubtful or _twice_unknown(passed):
        return _uncertain(ctx, st, passed)
    if _regions_in_use(ctx, st, passed):
        ctx.raises()  # the launch raises before it starts
        for arg in given:
            read(ctx, arg.value)
        return UNKNOWN
    report_specialized(ctx, kernel, verdict, frame.span)  # kernel errors its Consts reveal
    # an Acc tensor comes back from .sync() as a new handle (the name passed stays moved)
    accs = {at for p, at in zip(sig.params, verdict.where, strict=True) if p.kind == "acc"}
    results = tuple(_handed_back(ctx, a.value) if i in accs else _result(a.value)
                    for i, a in enumerate(positional))
    op = _new_op(ctx, st, call, sig.name, results, sig)
    for param, at in zip(sig.params, verdict.where, strict=True):
        if at is not None:
            _effect(ctx, st, op, param.kind, given[at] if isinstance(at, int) else
                    loc.keywords[at][1])
    return OpVal(op)


def _passed(params: Iterable[ParamSpec], where: Iterable[At | None], given: list[Arg],
            loc: CallLocator) -> list[tuple[str, Arg]]:
    """Each parameter that was given an argument, by kind, with that argument."""
    return [(p.kind, given[at] if isinstance(at, int) else loc.keywords[at][1])
            for p, at in zip(params, where, strict=True) if at is not None]


def _twice_unknown(pairs: list[tuple[str, Arg]]) -> bool:
    """One name the analysis cannot see into, passed for a Mut or Acc parameter and another:
    the launch raises (CT302 for a partition, CT406 for anything else) unless what it holds
    has no element."""
    keys = [a.key for _, a in pairs if a.key is not None and a.value == UNKNOWN]
    return any(keys.count(a.key) > 1 for kind, a in pairs
               if kind in ("mut", "acc") and a.key is not None and a.value == UNKNOWN)


def _uncertain(ctx: Ctx, st: State, passed: list[tuple[str, Arg]]) -> Value:
    """A launch that raises or runs by what an unknown argument holds (`_twice_unknown`, or a
    doubtful one that may be moved): nothing is reported about it, and what it would take is
    doubtful from here on (a later launch of it may raise CT301)."""
    for kind, arg in passed:
        if kind not in ("mut", "acc"):
            read(ctx, arg.value)
            continue
        escape(ctx, st, arg.value)
        if arg.key is not None and arg.key in st.env:
            st.env[arg.key] = DOUBTFUL
    return UNKNOWN


def _regions_in_use(ctx: Ctx, st: State, pairs: list[tuple[str, Arg]]) -> bool:
    """CT303/CT307 for arguments whose regions pending launches lease (the runtime's check at
    launch, in its order: the Mut partitions, then the tensors read)."""
    for kind, arg in sorted(pairs, key=lambda pair: pair[0] not in ("mut", "acc")):
        v = arg.value
        if kind == "mut" and isinstance(v, PartitionVal):
            if _read_whole(ctx, st, v, arg) or region_in_use(
                    ctx, st, v, True, arg.name, "passed to a Mut parameter", arg.span):
                return True
        elif kind in ("acc", "tensor") and isinstance(v, TensorVal) and region_in_use(
                ctx, st, v, kind == "acc", arg.name, "passed to an Acc parameter"
                if kind == "acc" else "read by another launch", arg.span):
            return True
    return False


def _read_whole(ctx: Ctx, st: State, v: PartitionVal, arg: Arg) -> bool:
    """CT303: a Mut partition of a view whose whole storage a pending launch reads."""
    world = ctx.world
    if not v.view:
        return False
    for op in sorted(st.leases.get(v.storage, frozenset())):
        if op in st.pending and op not in world.escaped_ops:
            kernel = world.ops[op].kernel
            note = Note(msg.LEASED_HERE.format(kernel=kernel), world.lease_site(op, v.storage))
            ctx.report(msg.REGION_READ.at(arg.span, (note,), name=arg.name, kernel=kernel,
                                          action="passed to a Mut parameter"))
            return True
    return False


def _reject(ctx: Ctx, diags: list[Diagnostic], args: Iterable[Arg]) -> Value:
    """The launch raises before it starts: nothing moves, and its result is unknown."""
    ctx.raises()
    for diag in diags:
        ctx.report(diag)
    for arg in args:
        read(ctx, arg.value)
    return UNKNOWN


def _facts(frame: LaunchFrame, arg: Arg, param: ParamSpec | None) -> ArgFacts:
    """What the analysis proved about an argument, with its move when it is a moved value."""
    if isinstance(arg.value, HostArrayVal) and param is not None and param.kind in NUMBER_KINDS:
        return _array_for_number(arg.value)
    if arg.items is not None:  # a list display, as the run words a list
        return list_facts(arg.items, None if param is None else param.kind)
    found = frame.moves.get(arg.span)
    return facts(arg.value) if found is None else replace(facts(arg.value), moved=found[0])


def _array_for_number(array: HostArrayVal) -> ArgFacts:
    """A NumPy array where a number goes, as the run words it (runtime/binding.number_facts).
    One of a single element is not judged here: the run takes a 0-d one as its number and
    words the others with the argument's own text."""
    if array.shape is None or math.prod(array.shape) == 1:
        return ArgFacts(None)
    return ArgFacts("other", text=array_text("numpy.ndarray", array.dtype, array.shape,
                                             hint=False))


def _name_at(given: list[Arg], span: Span) -> str:
    return next((a.name for a in given if a.span == span), "the argument")


def _launch_args(ctx: Ctx, st: State, call: ast.Call, frame: LaunchFrame
                 ) -> tuple[list[Arg], list[tuple[str, Span, Arg]], bool]:
    positional: list[Arg] = []
    keywords: list[tuple[str, Span, Arg]] = []
    starred = False
    for a in call_args(call):
        frame.current = ctx.span(a.value)
        value = ctx.evaluate(st, a.value)
        arg = Arg(value, frame.current, root_name(ctx, a.value), key_of(st, a.value),
                  _list_length(a.value))
        if a.star:
            starred = True
            escape(ctx, st, value)
        elif a.keyword is not None and a.keyword.arg is not None:
            keywords.append((a.keyword.arg, keyword_name_span(ctx.info, a.keyword), arg))
        else:
            positional.append(arg)
    frame.current = None
    return positional, keywords, starred


def _list_length(expr: ast.expr) -> int | None:
    """A list display's length (None: not one, or one with a starred item)."""
    if not isinstance(expr, ast.List) or any(isinstance(e, ast.Starred) for e in expr.elts):
        return None
    return len(expr.elts)


def root_name(ctx: Ctx, expr: ast.expr) -> str:
    """The variable an argument comes from (`z` for `z.partition((128,))`), else its text (as
    the runtime names it: `argument_name`)."""
    return argument_name(expr, ctx.text)


def _result(value: Value) -> Value:
    """What `.sync()` hands back for one positional argument."""
    if isinstance(value, (TensorVal, PartitionVal, IntVal)):
        return value
    return UNKNOWN


def _handed_back(ctx: Ctx, value: Value) -> Value:
    """An Acc tensor comes back as a new handle of the same elements (a view stays one)."""
    if isinstance(value, TensorVal):
        return replace(value, obj=ctx.world.fresh())
    return _result(value)


def _new_op(ctx: Ctx, st: State, call: ast.Call, kernel: str,
            results: tuple[Value, ...] | None, sig: KernelSignature | None = None) -> int:
    op = ctx.world.new_op(OpInfo("launch", kernel_label(kernel), ctx.span(call), results,
                                 frozenset(), sig))
    st.pending = st.pending | {op}
    return op


def _effect(ctx: Ctx, st: State, op: int, kind: str, arg: Arg) -> None:
    value = arg.value
    if isinstance(value, OpVal):
        ctx.world.escape_op(value.op)  # it runs with this launch; its leases are out of sight
    elif (kind == "mut" and isinstance(value, PartitionVal)) or (
            kind == "acc" and isinstance(value, TensorVal)):  # exclusively leased: moved
        move(st, value.obj, Moved(arg.span, f"into a launch of {ctx.world.ops[op].kernel}",
                                  arg.name, op, tuple(ctx.loops)))
        if kind == "mut" or value.view:  # a whole Acc tensor is moved: CT301 covers its uses
            lease(ctx, op, value, True, arg.span)
    elif kind == "tensor" and isinstance(value, TensorVal) and value.view:
        lease(ctx, op, value, False, arg.span)
    elif kind == "tensor" and isinstance(value, TensorVal):
        st.leases[value.storage] = st.leases.get(value.storage, frozenset()) | {op}
        ctx.world.lease_sites.setdefault((op, value.storage), arg.span)
