"""Host views in the checker: `t[a:b]`, `narrow`, `split_at`, `permute`, `view`, `reshape` (the
runtime's runtime/views.py, with the box math shared through compiler/launch/regions.py); the
regions their launches lease are leases.py's.

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
from typing import cast

from ...compiler.launch import regions
from ...compiler.launch.regions import Frame, Index, Layout
from ...diagnostics import messages as msg
from .context import Ctx
from .handlers import Handlers, HostCall
from .leases import write_in_use
from .syntax import call_args, sub_expressions
from .uses import ex_name, read
from .values import (
    UNKNOWN,
    IntVal,
    LiteralVal,
    Moved,
    Shape,
    State,
    TensorVal,
    TupleVal,
    Value,
    move,
)

_ELLIPSIS = object()
HANDLERS = Handlers()


def frame_of(t: TensorVal) -> Frame | None:
    """The value's frame: its own for a view, the root frame of its shape for a whole tensor."""
    if t.view:
        return t.frame
    return Frame.root(t.shape) if t.shape is not None else None


def _unknown_view(ctx: Ctx, t: TensorVal, shape: Shape | None = None) -> TensorVal:
    ctx.world.viewed.add(t.storage)
    return TensorVal(ctx.world.fresh(), t.storage, t.dtype, shape, None, True, meta=t.meta)


def _view(ctx: Ctx, t: TensorVal, frame: Frame | None, shape: Shape | None,
          layout: Layout | None = None) -> TensorVal:
    ctx.world.viewed.add(t.storage)
    return TensorVal(ctx.world.fresh(), t.storage, t.dtype, shape, frame, True, layout, t.meta)


def _ints(shape: Shape | None) -> tuple[int, ...] | None:
    return None if shape is None or None in shape else cast(tuple[int, ...], shape)


# -- making views ----------------------------------------------------------------------------
@HANDLERS.entry("tensor", "__getitem__")
def subscript(ctx: Ctx, st: State, use: HostCall) -> Value:
    """`t[a:b, :, c]` (or `t.__getitem__(key)`): a view, or CT406 for a key the runtime
    rejects."""
    t = use.value
    assert isinstance(t, TensorVal)
    items = _key_items(ctx, st, use.node)
    if items is None:  # a key whose items the analysis cannot count
        return _unknown_view(ctx, t)
    rank = len(t.shape) if t.shape is not None else None
    problem = regions.key_problem(tuple(_as_key(i) for i in items), rank)
    if problem is not None:
        return _bad(ctx, use.node, problem)
    if t.shape is None:
        return _unknown_view(ctx, t)
    explicit = [i for i in items if i is not _ELLIPSIS]
    fill: list[object] = [(None, None, None)] * (len(t.shape) - len(explicit))
    at = items.index(_ELLIPSIS) if _ELLIPSIS in items else len(items)
    full = [*explicit[:at], *fill, *explicit[at:]]
    for axis, (item, n) in enumerate(zip(full, t.shape, strict=True)):
        problem = None if not _known(item) else regions.index_problem(
            axis, item, n)  # type: ignore[arg-type]
        if problem is not None:
            return _bad(ctx, use.node, problem)
    if not all(_known(i) for i in full):
        return _unknown_view(ctx, t)
    return _indexed(ctx, t, tuple(full))  # type: ignore[arg-type]


def _key_items(ctx: Ctx, st: State, node: ast.expr) -> list[object] | None:
    """The items of the key (`t[a, b]`, `t[a]`, `t.__getitem__(a)`), each evaluated once;
    None when their number is not known (`t[*idx]`, a key that may hold a tuple)."""
    if isinstance(node, ast.Subscript):
        key = node.slice
    elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        key = node.args[0]
    else:
        for child in sub_expressions(node)[1:]:
            read(ctx, ctx.evaluate(st, child))
        return None
    if isinstance(key, (ast.Tuple, ast.Slice)) or (
            isinstance(key, ast.Constant) and key.value is Ellipsis):
        nodes = key.elts if isinstance(key, ast.Tuple) else [key]
        if any(isinstance(n, ast.Starred) for n in nodes):
            for n in nodes:
                read(ctx, ctx.evaluate(st, n.value if isinstance(n, ast.Starred) else n))
            return None
        return [_item(ctx, st, n) for n in nodes]
    value = ctx.evaluate(st, key)
    read(ctx, value)
    if isinstance(value, TupleVal):
        items = [_scalar(v) for v in value.items]
        return None if _UNSEEN in items else items
    item = _scalar(value)
    return None if item is _UNSEEN else [item]


class _Unknown:
    """An index whose value the analysis does not know: it may be any valid index."""


_UNSEEN = _Unknown()


def _known(item: object) -> bool:
    return item is not _UNSEEN and not (isinstance(item, tuple) and _UNSEEN in item)


def _as_key(item: object) -> object:
    """An item as the runtime's key would hold it (an unknown one: a valid int or bound)."""
    if isinstance(item, tuple):
        return slice(*(0 if v is _UNSEEN else v for v in item))
    if item is _ELLIPSIS:
        return Ellipsis
    return 0 if item is _UNSEEN else item


def _bad(ctx: Ctx, node: ast.AST, problem: str) -> Value:
    """CT406, as the runtime raises it; the view is not made (nothing follows from it)."""
    ctx.report(msg.BAD_VIEW.at(ctx.span(node), detail=problem))
    return UNKNOWN


def _item(ctx: Ctx, st: State, node: ast.expr) -> object:
    """One index: an int or a literal the runtime would be handed (`None`, `1.5`), (start,
    stop, step) of those, `_ELLIPSIS`, or `_UNSEEN` (also in a slice) where not known."""
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return _ELLIPSIS
    if isinstance(node, ast.Slice):
        return tuple(None if p is None else _index_value(ctx, st, p)
                     for p in (node.lower, node.upper, node.step))
    return _index_value(ctx, st, node)


def _index_value(ctx: Ctx, st: State, node: ast.expr) -> object:
    value = ctx.evaluate(st, node)
    read(ctx, value)
    return _scalar(value)


def _scalar(value: Value) -> object:
    if isinstance(value, IntVal):
        return value.value
    if isinstance(value, LiteralVal) and isinstance(value.value, (str, float, bool, type(None))):
        return value.value
    return _UNSEEN


def _indexed(ctx: Ctx, t: TensorVal, items: tuple[Index, ...]) -> Value:
    assert t.shape is not None
    frame = frame_of(t)
    found = frame.indexed(t.shape, items) if frame is not None else None
    if found is None:
        shape = tuple(None for i in items if not isinstance(i, int))
        return _unknown_view(ctx, t, shape)
    dims = _ints(t.shape)
    layout = t.layout.indexed(dims, items)[0] if t.layout is not None and dims else None
    return _view(ctx, t, found[0], found[1], layout)


def _bound(ctx: Ctx, st: State, use: HostCall) -> list[Value] | None:
    """The call's arguments in parameter order (UNKNOWN where one is missing), each evaluated
    once; None when `*args`/`**kw` hide them or a keyword is not the method's."""
    call, name, names = use.call, use.entry.name, use.entry.positional
    args: list[Value] = []
    named: dict[str, Value] = {}
    hidden = False
    for a in call_args(call):
        value = ctx.evaluate(st, a.value)
        read(ctx, value)
        if a.star or (a.name is not None and a.name not in names):
            hidden = True
        elif a.name is not None:
            named[a.name] = value
        else:
            args.append(value)
    if hidden or (named and name == "permute"):
        return None
    if not named:
        return args
    if len(args) > len(names) or any(n in named for n in names[:len(args)]):
        return None
    return args + [named.get(n, UNKNOWN) for n in names[len(args):]]


@HANDLERS.entry("tensor", "narrow", "split_at", "permute", "view")
def method(ctx: Ctx, st: State, use: HostCall) -> Value:
    """`t.narrow(axis, start, length)`, `t.split_at(axis, k)`, `t.permute(...)`, `t.view(s)`."""
    call, name, t = use.call, use.entry.name, use.value
    assert isinstance(t, TensorVal)
    args = _bound(ctx, st, use)
    if args is None:
        return TupleVal((_unknown_view(ctx, t), _unknown_view(ctx, t))) if (
            name == "split_at") else _unknown_view(ctx, t)
    ints = [v.value if isinstance(v, IntVal) else None for v in args]
    rank = len(t.shape) if t.shape is not None else None
    if name == "view":
        return _reshaped_view(ctx, call, t, args)
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
                 tuple(t.shape[a] for a in norm),
                 t.layout.permuted(norm) if t.layout is not None else None)


# -- view(shape) and reshape(shape): the same elements under another shape ---------------------
def _reshaped_view(ctx: Ctx, call: ast.Call, t: TensorVal, args: list[Value]) -> Value:
    """`t.view(shape)`: CT406 for a strided tensor or a shape of another size, as at run time;
    the box stays (its axis map is lost), the strides become contiguous."""
    given = _given_shape(args)
    dims = _ints(t.shape)
    if t.layout is not None and dims is not None and given is not None and not \
            t.layout.contiguous(dims):
        return _bad(ctx, call, regions.view_strided_problem(given, dims, t.layout.strides))
    shape = _resolve(ctx, call, t, given)
    if shape is _REJECTED:
        return UNKNOWN
    dims = shape if isinstance(shape, tuple) else None
    return _view(ctx, t, _reframed(t, dims), dims, _relaid(t, dims))


def _reframed(t: TensorVal, dims: Shape | None) -> Frame | None:
    """The box of `t` under a shape of another rank (its axis map is lost)."""
    frame = frame_of(t)
    return frame.reshaped(len(dims)) if frame is not None and dims is not None else None


def _relaid(t: TensorVal, dims: Shape | None) -> Layout | None:
    """The elements of contiguous `t` under the shape `dims`: its offset, contiguous strides."""
    resolved = _ints(dims)
    if t.layout is None or resolved is None:
        return None
    return Layout(t.layout.offset, regions.contiguous_strides(resolved))


_REJECTED = object()


def _given_shape(args: list[Value]) -> tuple[int, ...] | int | None:
    """The shape argument as written (an int or a tuple of ints); None when not known."""
    if len(args) != 1:
        return None
    if isinstance(args[0], IntVal):
        return args[0].value
    if isinstance(args[0], TupleVal) and all(isinstance(v, IntVal) for v in args[0].items):
        return tuple(cast(IntVal, v).value for v in args[0].items)
    return None


def _resolve(ctx: Ctx, call: ast.Call, t: TensorVal, given: tuple[int, ...] | int | None
             ) -> object:
    """The new shape (one -1 inferred), `_REJECTED` after reporting a size mismatch (CT406,
    the runtime's BAD_RESHAPE), or None when it cannot be known."""
    if given is None:
        return None
    size_dims = _ints(t.shape)
    if size_dims is None:
        return None
    wanted = (given,) if isinstance(given, int) else given
    size = math.prod(size_dims)
    dims = regions.resolve_dims(wanted, size)
    if any(d < 0 for d in dims) or math.prod(dims) != size:
        ctx.report(msg.BAD_RESHAPE.at(ctx.span(call), a=size_dims, na=size, b=wanted,
                                      nb=math.prod(dims)))
        return _REJECTED
    return dims


@HANDLERS.entry("tensor", "reshape")
def reshape(ctx: Ctx, st: State, use: HostCall) -> Value:
    """`t.reshape(shape)` moves `t` into a tensor of another shape: a write (CT303/CT307
    while a pending launch reads or writes it, as `partition`), then the same elements (a
    contiguous tensor) or a copy in new memory (a strided view)."""
    call, receiver, t = use.call, use.on, use.value
    assert isinstance(t, TensorVal)
    args = _bound(ctx, st, use)
    name = ex_name(ctx, receiver)
    if args is None:
        return UNKNOWN  # hidden arguments: the runtime may raise anything
    if write_in_use(ctx, st, receiver, t, use.entry.action):
        return UNKNOWN
    shape = _resolve(ctx, call, t, _given_shape(args))
    if shape is _REJECTED:
        return UNKNOWN
    move(st, t.obj, Moved(ctx.span(call), "by reshape()", name, None,
                           tuple(ctx.loops)))
    dims = shape if isinstance(shape, tuple) else None
    return _reshaped(ctx, t, dims)


def _reshaped(ctx: Ctx, t: TensorVal, dims: Shape | None) -> TensorVal:
    """What `reshape` hands back, following the runtime: a strided view is copied (new
    memory); otherwise the same storage, in its view family (a bounding box) when one exists."""
    known = _ints(t.shape)
    resolved = _ints(dims)
    if t.layout is None or known is None:  # contiguous or copied: not known
        return _unknown_view(ctx, t, dims) if t.view or t.storage in ctx.world.viewed else \
            TensorVal(ctx.world.fresh(), t.storage, t.dtype, dims, meta=t.meta)
    if not t.layout.contiguous(known):
        obj = ctx.world.fresh()
        return TensorVal(obj, obj, t.dtype, dims, layout=Layout.root(resolved)
                         if resolved is not None else None, meta=t.meta)
    if t.view or t.storage in ctx.world.viewed:
        return _view(ctx, t, _reframed(t, dims), dims, _relaid(t, dims))
    return TensorVal(ctx.world.fresh(), t.storage, t.dtype, dims, layout=_relaid(t, dims),
                     meta=t.meta)


def _axis(axis: int | None, rank: int | None) -> int | None:
    if axis is None or rank is None or not -rank <= axis < rank:
        return None
    return axis + rank if axis < 0 else axis
