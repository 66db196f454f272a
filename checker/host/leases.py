"""Leases at one program point: which pending launch reads a whole storage (`State.leases`) or
reads or writes a region of it by a view (`World.regions`), and the errors of a use that
clashes with one (CT303, CT307), as the runtime raises them (runtime/views.py, ownership.py).

A region is a view's box where its bounds are known (its frame), the whole storage for a
tensor that is not a view, and for a view of unknown bounds that view alone (`Unbounded`): it
clashes with itself and with the whole storage (unless it is empty at run time), and whether
it meets another view is left to the runtime.
"""

from __future__ import annotations

import ast

from ...compiler.launch import leased_diagnostic
from ...compiler.launch.regions import boxes_intersect
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Note, Span
from .context import Ctx
from .uses import ex_name
from .values import PartitionVal, Region, State, TensorVal, Unbounded


def region_of(v: TensorVal | PartitionVal) -> Region:
    if not v.view:
        return None
    return v.frame.box if v.frame is not None else Unbounded(v.obj)


def overlap(a: Region, b: Region) -> bool:
    """Whether two regions of one storage surely share elements: a known empty box (a slice
    past the end: `t[999:1127]` of 256) shares none, not even with the whole storage."""
    if _empty(a) or _empty(b):
        return False
    if a is None or b is None:
        return True
    if isinstance(a, Unbounded) or isinstance(b, Unbounded):
        return a == b
    return boxes_intersect(a, b)


def _empty(r: Region) -> bool:
    return isinstance(r, tuple) and any(lo >= hi for lo, hi, _ in r)


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
    world, region = ctx.world, region_of(v)
    for op in sorted(st.pending):
        if op in world.escaped_ops:
            continue
        for storage, other, other_writes, holder in world.regions.get(op, ()):
            if storage != v.storage or not (writes or other_writes):
                continue
            if not overlap(region, other):
                continue
            kernel, site = world.ops[op].kernel, world.lease_site(op, storage)
            if holder == v.obj and not other_writes:  # the very handle it reads (ownership.py)
                ctx.report(leased_diagnostic(name, action, span, kernel, site))
                return True
            message = msg.REGION_WRITTEN if other_writes else msg.REGION_READ
            note = Note(msg.LEASED_HERE.format(kernel=kernel), site)
            ctx.report(message.at(span, (note,), name=name, kernel=kernel, action=action))
            return True
    return False


def lease(ctx: Ctx, op: int, v: TensorVal | PartitionVal, writes: bool, span: Span) -> None:
    """Records what a launch takes by region: a view it reads, or any Mut partition."""
    ctx.world.regions.setdefault(op, []).append((v.storage, region_of(v), writes, v.obj))
    ctx.world.lease_sites.setdefault((op, v.storage), span)
