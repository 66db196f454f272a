"""Merging the states of two paths (after an `if`, at a loop head, after `try`)."""

from __future__ import annotations

from collections.abc import Hashable

from .values import (
    DOUBTFUL,
    UNKNOWN,
    Doubtful,
    OpVal,
    PartitionVal,
    State,
    TensorVal,
    TupleVal,
    Value,
    join_dim,
    join_obj,
    ops_in,
)
from .world import OpInfo, World


def join_states(world: World, where: Hashable, a: State | None, b: State | None) -> State | None:
    """None stands for a path that does not reach this point (return, raise, break)."""
    if a is None or b is None:
        other = b if a is None else a
        return None if other is None else other.copy()
    out = State(pending=a.pending | b.pending, started=a.started & b.started)
    out.objs = dict(a.objs)
    for obj, st in b.objs.items():
        out.objs[obj] = join_obj(a.objs[obj], st) if obj in a.objs else st
    out.leases = dict(a.leases)
    for storage, ops in b.leases.items():
        out.leases[storage] = out.leases.get(storage, frozenset()) | ops
    for name in a.env.keys() | b.env.keys():
        va, vb = a.env.get(name), b.env.get(name)
        if (va is None or vb is None) and "." in name:
            continue  # a place one path forgot (places.py): forgotten after the join too
        if va is None or vb is None or va == vb:
            # A name bound on one path only keeps that value: the other path would fail anyway.
            kept = vb if va is None else va
            assert kept is not None
            out.env[name] = kept
        else:
            out.env[name] = join_value(world, (where, name), va, vb, a, b, out)
    return out


def join_value(world: World, key: Hashable, va: Value, vb: Value, sa: State, sb: State,
               out: State) -> Value:
    """A value that is `va` on one path and `vb` on the other: a phi with the joined state."""
    if va == vb:
        return va
    if isinstance(va, TensorVal) and isinstance(vb, TensorVal):
        obj, storage = _phi_owned(world, key, va, vb, sa, sb, out)
        return TensorVal(obj, storage, va.dtype if va.dtype == vb.dtype else None,
                         join_dim(va.shape, vb.shape), va.frame if va.frame == vb.frame else None,
                         va.view or vb.view, va.layout if va.layout == vb.layout else None,
                         va.meta and vb.meta)
    if isinstance(va, PartitionVal) and isinstance(vb, PartitionVal):
        obj, storage = _phi_owned(world, key, va, vb, sa, sb, out)
        return PartitionVal(obj, storage, va.dtype if va.dtype == vb.dtype else None,
                            join_dim(va.shape, vb.shape), join_dim(va.tile, vb.tile),
                            va.persistent or vb.persistent, va.site,
                            va.frame if va.frame == vb.frame else None, va.view or vb.view,
                            va.layout if va.layout == vb.layout else None, va.meta and vb.meta,
                            va.order if va.order == vb.order else None)
    if isinstance(va, OpVal) and isinstance(vb, OpVal):
        return OpVal(_phi_op(world, key, va.op, vb.op))
    if (isinstance(va, TupleVal) and isinstance(vb, TupleVal)
            and len(va.items) == len(vb.items)):
        return TupleVal(tuple(join_value(world, (key, i), x, y, sa, sb, out)
                              for i, (x, y) in enumerate(zip(va.items, vb.items, strict=True))))
    for op in ops_in(va) + ops_in(vb):
        world.escape_op(op)  # its run is out of sight now: never report it
    return DOUBTFUL if isinstance(va, Doubtful) or isinstance(vb, Doubtful) else UNKNOWN


def _phi_owned(world: World, key: Hashable, va: TensorVal | PartitionVal,
               vb: TensorVal | PartitionVal, sa: State, sb: State, out: State) -> tuple[int, int]:
    obj = world.phi((key, "obj"))
    out.objs[obj] = join_obj(sa.obj(va.obj), sb.obj(vb.obj))
    if va.storage == vb.storage:
        return obj, va.storage
    storage = world.phi((key, "storage"))
    out.leases[storage] = (sa.leases.get(va.storage, frozenset())
                           | sb.leases.get(vb.storage, frozenset()))
    return obj, storage


def _phi_op(world: World, key: Hashable, a: int, b: int) -> int:
    op = world.phi((key, "op"))
    first = world.ops[a] if a in world.ops else world.ops[b]
    before = world.ops.get(op)
    members = world.members(a) | world.members(b) | (before.members if before else frozenset())
    world.ops[op] = OpInfo("phi", first.kernel, first.span, None, members)
    return op
