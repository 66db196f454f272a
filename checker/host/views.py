"""Host views in the checker: `t[a:b]`, `narrow`, `split_at`, `permute`, `view`, and the regions
their launches lease (the runtime's runtime/views.py, with the box math shared through
compiler/launch/regions.py).

A view is a fresh tensor value of its base's storage. Its `frame` is known where every bound is
a known int (and the base's rank is known); otherwise it is None and no rule about its region
reports anything. Launches record the regions their view arguments read and their Mut
partitions write (`World.regions`); a later write overlapping a pending read is CT303, any use
overlapping a pending write is CT307, as at run time. Whole tensors read by a launch stay in
`State.leases` (a read of everything).
"""

from __future__ import annotations

import ast
import math

from ...compiler.launch import regions
from ...compiler.launch.regions import Box, Frame, Index, boxes_intersect
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Note, Span
from . import expressions as ex
from .context import Ctx
from .syntax import call_args
from .values import UNKNOWN, IntVal, PartitionVal, Shape, State, TensorVal, TupleVal, Value

_ELLIPSIS = object()


def frame_of(t: TensorVal) -> Frame | None:
    """The value's frame: its own for a view, the root frame of its shape for a whole tensor."""
    if t.view:
        return t.frame
    return Frame.root(t.shape) if t.shape is not None else None


def box_of(v: TensorVal | PartitionVal) -> Box | None:
    """None: the whole storage (or, for a view of unknown bounds, see `known`)."""
    return v.frame.box if v.view and v.frame is not None else None


def known(v: TensorVal | PartitionVal) -> bool:
    return not v.view or v.frame is not None


def _unknown_view(ctx: Ctx, t: TensorVal, shape: Shape | None = None) -> TensorVal:
    return TensorVal(ctx.world.fresh(), t.storage, t.dtype, shape, None, True)


def _view(ctx: Ctx, t: TensorVal, frame: Frame | None, shape: Shape | None) -> TensorVal:
    return TensorVal(ctx.world.fresh(), t.storage, t.dtype, shape, frame, True)


# -- making views ----------------------------------------------------------------------------
def subscript(ctx: Ctx, st: State, expr: ast.Subscript, t: TensorVal) -> Value:
    nodes = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    items: list[object] = [_item(ctx, st, node) for node in nodes]
    if t.shape is None or items.count(_ELLIPSIS) > 1:
        return _unknown_view(ctx, t)
    rank = len(t.shape)
    explicit = [i for i in items if i is not _ELLIPSIS]
    problem = regions.count_problem(len(explicit), rank)
    if problem is not None:
        return _bad(ctx, expr, problem)
    fill: list[object] = [(None, None, None)] * (rank - len(explicit))
    at = items.index(_ELLIPSIS) if _ELLIPSIS in items else len(items)
    full = [*explicit[:at], *fill, *explicit[at:]]
    for axis, (item, n) in enumerate(zip(full, t.shape, strict=True)):
        problem = None if item is None else regions.index_problem(
            axis, item, n)  # type: ignore[arg-type]
        if problem is not None:
            return _bad(ctx, expr, problem)
    if None in full:
        return _unknown_view(ctx, t)
    return _indexed(ctx, t, tuple(full))  # type: ignore[arg-type]


def _bad(ctx: Ctx, node: ast.AST, problem: str) -> Value:
    """CT406, as the runtime raises it; the view is not made (nothing follows from it)."""
    ctx.report(msg.BAD_VIEW.at(ctx.span(node), detail=problem))
    return UNKNOWN


def _item(ctx: Ctx, st: State, node: ast.expr) -> object:
    """One index: an int, (start, stop, step) with Nones, `_ELLIPSIS`, or None when unknown."""
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return _ELLIPSIS
    if isinstance(node, ast.Slice):
        parts = [None if p is None else ex.evaluate(ctx, st, p)
                 for p in (node.lower, node.upper, node.step)]
        for p in parts:
            if p is not None:
                ex.read(ctx, p)
        if any(p is not None and not isinstance(p, IntVal) for p in parts):
            return None
        return tuple(p.value if isinstance(p, IntVal) else None for p in parts)
    value = ex.evaluate(ctx, st, node)
    ex.read(ctx, value)
    return value.value if isinstance(value, IntVal) else None


def _indexed(ctx: Ctx, t: TensorVal, items: tuple[Index, ...]) -> Value:
    assert t.shape is not None
    frame = frame_of(t)
    found = frame.indexed(t.shape, items) if frame is not None else None
    if found is None:
        shape = tuple(None for i in items if not isinstance(i, int))
        return _unknown_view(ctx, t, shape)
    return _view(ctx, t, found[0], found[1])


def method(ctx: Ctx, st: State, call: ast.Call, name: str, t: TensorVal) -> Value:
    """`t.narrow(axis, start, length)`, `t.split_at(axis, k)`, `t.permute(...)`, `t.view(s)`."""
    args: list[Value] = []
    for a in call_args(call):
        value = ex.evaluate(ctx, st, a.value)
        ex.read(ctx, value)
        args.append(UNKNOWN if a.star or a.name is not None else value)
    ints = [v.value if isinstance(v, IntVal) else None for v in args]
    rank = len(t.shape) if t.shape is not None else None
    if name == "view":
        shape = _view_shape(t, args)
        return _view(ctx, t, _reshaped(t, len(shape)) if shape is not None else None, shape)
    if name == "permute":
        return _permute(ctx, call, t, args, rank)
    axis = ints[0] if ints else None
    if axis is not None and rank is not None and name in ("narrow", "split_at"):
        problem = regions.axis_problem(axis, rank)
        if problem is not None:
            return _bad(ctx, call, problem)
    axis = _axis(axis, rank)
    if name == "narrow" and len(ints) == 3 and axis is not None and None not in ints[1:]:
        start, length = ints[1], ints[2]
        assert start is not None and length is not None and t.shape is not None
        problem = regions.narrow_problem(axis, start, length, t.shape[axis])
        if problem is not None:
            return _bad(ctx, call, problem)
        return _narrow(ctx, t, axis, start, start + length)
    if name == "split_at" and len(ints) == 2 and axis is not None and ints[1] is not None:
        k = ints[1]
        assert t.shape is not None
        problem = regions.split_problem(axis, k, t.shape[axis])
        if problem is not None:
            return _bad(ctx, call, problem)
        return TupleVal((_narrow(ctx, t, axis, 0, k), _narrow(ctx, t, axis, k, None)))
    if name == "split_at":
        return TupleVal((_unknown_view(ctx, t), _unknown_view(ctx, t)))
    return _unknown_view(ctx, t)


def _narrow(ctx: Ctx, t: TensorVal, axis: int, start: int, stop: int | None) -> Value:
    assert t.shape is not None
    items: list[Index] = [(None, None, None)] * len(t.shape)
    items[axis] = (start, stop, 1)
    return _indexed(ctx, t, tuple(items))


def _permute(ctx: Ctx, call: ast.Call, t: TensorVal, args: list[Value],
             rank: int | None) -> Value:
    order = args[0].items if len(args) == 1 and isinstance(args[0], TupleVal) else tuple(args)
    given = [v.value if isinstance(v, IntVal) else None for v in order]
    if rank is None or t.shape is None or None in given:
        return _unknown_view(ctx, t)
    ints = tuple(a for a in given if a is not None)
    problem = next((p for a in ints if (p := regions.axis_problem(a, rank)) is not None),
                   None) or regions.permute_problem(ints, rank)
    if problem is not None:
        return _bad(ctx, call, problem)
    norm = tuple(a + rank if a < 0 else a for a in ints)
    frame = frame_of(t)
    return _view(ctx, t, frame.permuted(norm) if frame is not None else None,
                 tuple(t.shape[a] for a in norm))


def _reshaped(t: TensorVal, rank: int | None) -> Frame | None:
    frame = frame_of(t)
    return frame.reshaped(rank) if frame is not None and rank is not None else None


def _view_shape(t: TensorVal, args: list[Value]) -> Shape | None:
    """The shape `t.view(shape)` gives: its ints, one -1 inferred where the size is known."""
    if len(args) != 1 or not isinstance(args[0], (IntVal, TupleVal)):
        return None
    items = (args[0],) if isinstance(args[0], IntVal) else args[0].items
    dims = [v.value if isinstance(v, IntVal) else None for v in items]
    if -1 in dims:
        sizes = [d for d in t.shape or () if d is not None]
        rest = math.prod(d for d in dims if d is not None and d != -1)
        known = t.shape is not None and len(sizes) == len(t.shape) and rest > 0
        fill = math.prod(sizes) // rest if known else None
        dims = [fill if d == -1 else d for d in dims]
    return tuple(dims)


def _axis(axis: int | None, rank: int | None) -> int | None:
    if axis is None or rank is None or not -rank <= axis < rank:
        return None
    return axis + rank if axis < 0 else axis


# -- region leases -----------------------------------------------------------------------------
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
