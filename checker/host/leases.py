"""Leases at one program point: which pending launch reads a whole storage (`State.leases`) or
reads or writes a region of it by a view (`World.regions`), and the errors of a use that
clashes with one (CT303, CT307), as the runtime raises them (runtime/views.py, ownership.py).

A region is known where the view's bounds are (its frame); a view of unknown bounds reports
nothing.
"""

from __future__ import annotations

import ast

from ...compiler.launch import leased_diagnostic
from ...compiler.launch.regions import Box, boxes_intersect
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Note, Span
from .context import Ctx
from .uses import ex_name
from .values import PartitionVal, State, TensorVal


def box_of(v: TensorVal | PartitionVal) -> Box | None:
    """None: the whole storage (or, for a view of unknown bounds, see `known`)."""
    return v.frame.box if v.view and v.frame is not None else None


def known(v: TensorVal | PartitionVal) -> bool:
    return not v.view or v.frame is not None


def leased(ctx: Ctx, st: State, receiver: ast.expr, name: str, t: TensorVal,
           action: str) -> bool:
    """CT303 when a pending launch reads the whole storage of `t`, which is to be written."""
    world = ctx.world
    for op in sorted(st.leases.get(t.storage, frozenset())):
        if op in st.pending and op not in world.escaped_ops:
            ctx.report(leased_diagnostic(name, action, ctx.span(receiver),
                                         world.ops[op].kernel, world.lease_site(op, t.storage)))
            return True
    return False


def write_in_use(ctx: Ctx, st: State, receiver: ast.expr, t: TensorVal, action: str) -> bool:
    """CT303/CT307 when `t` (the receiver of a call that writes or moves it) is read or
    written by a pending launch, as a whole or by a region; reported at the receiver."""
    name = ex_name(ctx, receiver)
    return leased(ctx, st, receiver, name, t, action) or region_in_use(
        ctx, st, t, True, name, action, ctx.span(receiver))


def region_in_use(ctx: Ctx, st: State, v: TensorVal | PartitionVal, writes: bool, name: str,
                  action: str, span: Span) -> bool:
    """CT307 when a pending launch writes a region overlapping `v`'s; CT303 when `v` is
    written and a pending launch reads one by a view. Reports and returns True on a clash."""
    if not known(v):
        return False
    world, box = ctx.world, box_of(v)
    for op in sorted(st.pending):
        if op in world.escaped_ops:
            continue
        for storage, other, other_writes in world.regions.get(op, ()):
            if storage != v.storage or not (writes or other_writes):
                continue
            if box is not None and other is not None and not boxes_intersect(box, other):
                continue
            message = msg.REGION_WRITTEN if other_writes else msg.REGION_READ
            kernel = world.ops[op].kernel
            note = Note(msg.LEASED_HERE.format(kernel=kernel), world.lease_site(op, storage))
            ctx.report(message.at(span, (note,), name=name, kernel=kernel, action=action))
            return True
    return False


def lease(ctx: Ctx, op: int, v: TensorVal | PartitionVal, writes: bool, span: Span) -> None:
    """Records what a launch takes by region: a view it reads, or any Mut partition."""
    if not known(v):
        return
    ctx.world.regions.setdefault(op, []).append((v.storage, box_of(v), writes))
    ctx.world.lease_sites.setdefault((op, v.storage), span)
