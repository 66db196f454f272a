"""The host API's entries that need no handler of their own, evaluated by their declared
effect (compiler/hostapi): reads (`t.numpy()`), writes (`t.fill_(v)`) and inspections
(`t.strides`, `op.finished`); and the properties whose values the analysis follows
(`t.shape`, `t.ndim`, `t.size`, so host arithmetic on them keeps its bounds)."""

from __future__ import annotations

import ast
import math
from typing import cast

from ...compiler.hostapi import Effect
from ...diagnostics import messages as msg
from .context import Ctx
from .handlers import Handlers, HostCall, escape_args, read_args
from .leases import leased, region_in_use
from .places import key_of
from .uses import ex_name, read
from .values import (
    UNKNOWN,
    IntVal,
    OpVal,
    PartitionVal,
    State,
    TensorVal,
    TupleVal,
    Unbound,
    Value,
)

HANDLERS = Handlers()


@HANDLERS.effect(Effect.READS)
def reads(ctx: Ctx, st: State, use: HostCall) -> Value:
    """CT307 when a pending launch writes the region read (CT406 for a meta tensor where the
    entry says so), as the runtime checks before it reads."""
    if _raising_args(ctx, st, use.call):  # Python evaluates them before the call runs
        return UNKNOWN
    v = use.value
    if isinstance(v, (TensorVal, PartitionVal)) and not _meta(ctx, use, v):
        region_in_use(ctx, st, v, False, ex_name(ctx, use.on), use.entry.action,
                      ctx.span(use.node))
    return UNKNOWN


@HANDLERS.effect(Effect.WRITES)
def writes(ctx: Ctx, st: State, use: HostCall) -> Value:
    """A write in place of the whole receiver: CT303 while a pending launch reads it, CT307
    (CT303) for a region a pending launch writes (reads); it returns its receiver. Python
    evaluates the arguments first, but a name's value (`t.copy_(src)`) is only looked at by
    the write, after the receiver's checks: a moved `src` is CT301 only when those pass."""
    names = bound_args(st, use.call)
    if not names and _raising_args(ctx, st, use.call):
        return UNKNOWN
    t = use.value
    name, action = ex_name(ctx, use.on), use.entry.action
    if isinstance(t, TensorVal) and (
            leased(ctx, st, use.on, name, t, action) or _meta(ctx, use, t)
            or region_in_use(ctx, st, t, True, name, action, ctx.span(use.on))):
        return UNKNOWN  # the call raises
    if names:
        read_args(ctx, st, use.call)
    return t if isinstance(t, TensorVal) else UNKNOWN


def _raising_args(ctx: Ctx, st: State, call: ast.Call) -> bool:
    """Evaluates the arguments; True when one raises (then the call never runs)."""
    mark = ctx.raised
    read_args(ctx, st, call)
    return ctx.raised != mark


def bound_args(st: State, call: ast.Call) -> bool:
    """Every argument is a name or place bound here (loading it cannot raise), given
    positionally."""
    keys = [key_of(st, a) for a in call.args]
    return not call.keywords and bool(keys) and all(
        k is not None and k in st.env and not isinstance(st.env[k], Unbound) for k in keys)


@HANDLERS.effect(Effect.INSPECTS)
def inspects(ctx: Ctx, st: State, use: HostCall) -> Value:
    """Metadata: nothing changes (a lazy op looked at counts as handed on)."""
    if isinstance(use.node, ast.Call):
        (escape_args if isinstance(use.value, OpVal) else read_args)(ctx, st, use.node)
    if isinstance(use.value, OpVal):
        read(ctx, use.value)
    return UNKNOWN


@HANDLERS.entry("tensor", "shape", "ndim", "size")
@HANDLERS.entry("partition", "shape")
def shape_attribute(ctx: Ctx, st: State, use: HostCall) -> Value:
    """`t.shape`, `t.ndim` and `t.size` where the shape is known (a partition's shape is its
    tensor's)."""
    t = use.value
    assert isinstance(t, (TensorVal, PartitionVal))
    shape, attr = t.shape, use.entry.name
    if shape is None:
        return UNKNOWN
    if attr == "shape":
        return TupleVal(tuple(UNKNOWN if d is None else IntVal(d) for d in shape))
    if attr == "ndim":
        return IntVal(len(shape))
    if None not in shape:  # size
        return IntVal(math.prod(cast(tuple[int, ...], shape)))
    return UNKNOWN


def _meta(ctx: Ctx, use: HostCall, v: TensorVal | PartitionVal) -> bool:
    """CT406 for a call that needs the elements of a meta tensor (ct.meta has none)."""
    if not v.meta or msg.META_TENSOR_DATA not in use.entry.raises:
        return False
    ctx.report(msg.META_TENSOR_DATA.at(ctx.span(use.node), name=ex_name(ctx, use.on),
                                       action=use.entry.action))
    return True
