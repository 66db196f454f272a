"""Tensors made and moved: the constructors (`ct.zeros(...)`, every entry of effect CREATES),
`t.partition(...)` and `p.unpartition()`."""

from __future__ import annotations

import ast
from typing import cast

from ...compiler.dsl.markers import as_dtype
from ...compiler.dsl.orders import TileOrder, group_problem
from ...compiler.dtypes import BY_NUMPY_NAME, DType
from ...compiler.hostapi import Effect
from ...compiler.hostapi.shapes import (
    count_problem,
    dtype_problem,
    fill_problem,
    float_dtype_problem,
    no_dlpack,
    seed_problem,
    shape_problem,
)
from ...compiler.launch import partition_tile_problem
from ...compiler.launch.regions import Layout
from ...compiler.launch.tiles import (
    Problem,
    as_tile,
    blocks_problem,
    grid_problem,
    launch_grid,
    order_problem,
    tile_kind_problem,
    tile_rank_problem,
)
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic, Span
from ...reader.source import literal_value
from .context import Ctx
from .handlers import Bound, Handlers, HostCall, bind, read_args
from .launches import slab_grid
from .leases import write_in_use
from .literals import NOT_KNOWN, known_object
from .places import key_of
from .syntax import call_args
from .uses import ex_name, head_name
from .values import (
    UNKNOWN,
    HostArrayVal,
    IntVal,
    LiteralVal,
    Moved,
    PartitionVal,
    Shape,
    State,
    TensorVal,
    TupleVal,
    Value,
    move,
)

HANDLERS = Handlers()


def shape_of(value: Value) -> Shape | None:
    if isinstance(value, IntVal):
        return (value.value,)
    if isinstance(value, TupleVal):
        return tuple(v.value if isinstance(v, IntVal) else None for v in value.items)
    return None


@HANDLERS.effect(Effect.CREATES)
def construct(ctx: Ctx, st: State, use: HostCall) -> Value:
    """A new tensor: its dtype and shape where the arguments show them (a rank-1 `n`), its
    layout where its memory is new, no memory for `ct.meta`; CT406/CT412 where the runtime
    refuses the arguments the analysis can read (then nothing follows from the call)."""
    entry = use.entry
    if entry.name == "from_dlpack" and _no_dlpack(ctx, st, use.call):
        return UNKNOWN
    args = bind(ctx, st, use.call, entry)
    like = args.get("t", (UNKNOWN,))[0] if args is not None else UNKNOWN
    if args is not None:
        problem, dtype = _argument_problem(ctx, st, entry.name, args, like)
        if problem is not None:
            ctx.report(problem[0].at(ctx.span(use.call), **problem[1]))
            return UNKNOWN
    shape: Shape | None = None
    if isinstance(like, TensorVal):  # `ct.zeros_like(t)`: t's shape (and dtype, above)
        shape = like.shape
    elif args is not None and "n" in entry.positional:
        n = args.get("n")
        shape = (n[0].value if n and isinstance(n[0], IntVal) else None,)
    elif args is not None and "shape" in args:
        listed = _listed(args["shape"][1])  # `ct.zeros([128], f32)`: a list is a shape too
        shape = shape_of(args["shape"][0]) if listed is None else _ints(listed)
    array = args.get("array") if args is not None and entry.name == "from_numpy" else None
    if array is not None and isinstance(array[0], HostArrayVal):  # `np.ones((37, 100))`
        shape = array[0].shape
        if dtype is None and array[0].dtype is not None:
            dtype = BY_NUMPY_NAME.get(array[0].dtype)
    if shape is not None and any(n is not None and n < 0 for n in shape):
        shape = None  # a negative extent, which the constructor refuses at run time: unknown
    obj = ctx.world.fresh()
    known = entry.memory != "imported" and shape is not None and None not in shape
    return TensorVal(obj, obj, dtype if args is not None else None, shape,
                     layout=Layout.root(cast(tuple[int, ...], shape)) if known else None,
                     meta=entry.memory == "none")


def _listed(expr: ast.expr) -> tuple[object, ...] | None:
    """A list literal of literals (`[128]`, `[64, 64]`), as written; None for anything else."""
    if not isinstance(expr, ast.List):
        return None
    items = tuple(literal_value(e) for e in expr.elts)
    return None if None in items else items


def _no_dlpack(ctx: Ctx, st: State, call: ast.Call) -> bool:
    """CT406 for `ct.from_dlpack(x)` of what has no `__dlpack__` (a partition, a number), as
    the import refuses it before it looks at anything else (a moved partition included)."""
    args = call_args(call)
    if len(args) != 1 or args[0].star or args[0].name is not None:
        return False
    expr = args[0].value
    key = key_of(st, expr)
    value = st.env.get(key) if key is not None else None
    if isinstance(value, PartitionVal):
        kind = "Partition"
    elif isinstance(value, (IntVal, LiteralVal)) or (value is None and isinstance(
            expr, ast.Constant)):
        kind = type(value.value if value is not None else literal_value(expr)).__name__
    else:
        return False
    ctx.report(msg.BAD_DLPACK.at(ctx.span(call), detail=no_dlpack(kind)))
    return True


# The runtime's order of checks per constructor (runtime/constructors.py): the first problem
# is the one raised. Every other constructor checks its shape, then its dtype.
_ORDER: dict[str, tuple[str, ...]] = {
    "arange": ("n", "shape", "dtype"), "full": ("shape", "dtype", "value"),
    "rand": ("shape", "seed", "dtype", "float"), "randn": ("shape", "seed", "dtype", "float"),
    "from_numpy": ("dtype",), "from_dlpack": (), "zeros_like": ("dtype",),
    "ones_like": ("dtype",), "empty_like": ("dtype",), "full_like": ("dtype", "value")}
_DTYPE_OPTIONAL = frozenset({"from_numpy", "zeros_like", "ones_like", "empty_like", "full_like"})


def _argument_problem(ctx: Ctx, st: State, name: str, args: Bound, like: Value
                      ) -> tuple[Problem | None, DType | None]:
    """The first problem the runtime raises for the arguments the analysis knows, and the
    dtype where it is known (a `*_like` constructor's: its tensor's, unless given)."""
    what = f"ct.{name}"
    dtype = like.dtype if isinstance(like, TensorVal) and "dtype" not in args else None
    for check in _ORDER.get(name, ("shape", "dtype")):
        problem: Problem | None = None
        if check == "n" and "n" in args:
            n = known_object(ctx, st, *args["n"])
            problem = None if n is NOT_KNOWN else (count_problem(what, n) or shape_problem(
                what, (n,)))
        elif check == "shape" and "shape" in args:
            problem = _shape_problem(what, *args["shape"])
        elif check == "dtype" and "dtype" in args:
            given = known_object(ctx, st, *args["dtype"])
            if given is None and name in _DTYPE_OPTIONAL:
                dtype = like.dtype if isinstance(like, TensorVal) else None
            elif given is not NOT_KNOWN:
                problem = dtype_problem(given)
                dtype = as_dtype(given)
        elif check == "float" and dtype is not None:
            problem = float_dtype_problem(what, dtype)
        elif check == "value" and "value" in args and dtype is not None:
            value = known_object(ctx, st, *args["value"])
            problem = None if value is NOT_KNOWN else fill_problem(value, dtype)
        elif check == "seed" and "seed" in args:
            seed = known_object(ctx, st, *args["seed"])
            problem = None if seed is NOT_KNOWN else seed_problem(what, seed)
        if problem is not None:
            return problem, None
    return None, dtype


def _shape_problem(what: str, value: Value, expr: ast.expr) -> Problem | None:
    """The constructors' shape rule (shapes.py, as at run time) on a shape the checker knows:
    a literal as written (`(1.5,)`, `[128]`), or ints it computed."""
    listed = _listed(expr)
    shape: object = literal_value(expr) if listed is None else list(listed)  # as written
    if shape is None:
        shape = value.value if isinstance(value, IntVal) else shape_of(value)
        if shape is None or (isinstance(shape, tuple) and None in shape):
            return None
    return shape_problem(what, shape)


@HANDLERS.entry("tensor", "partition")
def partition(ctx: Ctx, st: State, use: HostCall) -> Value:
    """Moves `t` into a partition; a write, so no pending launch may be reading it (CT303)."""
    call, receiver, t = use.call, use.on, use.value
    assert isinstance(t, TensorVal)
    args = bind(ctx, st, call, use.entry)
    name = ex_name(ctx, receiver)
    if args is None or write_in_use(ctx, st, receiver, t, use.entry.action):
        return UNKNOWN
    if args.get("blocks", (UNKNOWN,))[0] == LiteralVal(None):
        del args["blocks"]  # `blocks=None`: not persistent, as when it is not given
    tile = _tile_shape(ctx, st, *args["tile_shape"]) if "tile_shape" in args else None
    order = _order(ctx, args["order"][1]) if "order" in args else "ct.row_major"
    problem = _bad_partition(ctx, st, call, args, t.shape, name) or _bad_grid(
        ctx, call, args, t.shape, tile, order)
    if problem is not None:
        ctx.report(problem)
        return UNKNOWN
    site = ctx.span(call)
    move(st, t.obj, Moved(site, "by .partition()", name, None, tuple(ctx.loops)))
    if ctx.facts is not None and isinstance(receiver, ast.Name):
        ctx.facts.origins[t.storage] = name
    return PartitionVal(ctx.world.fresh(), t.storage, t.dtype, t.shape, tile, "blocks" in args,
                        site, t.frame, t.view, t.layout, t.meta, order)


def _order(ctx: Ctx, expr: ast.expr) -> str | None:
    """An `order=` argument as the runtime shows it (`ct.grouped(8)`); None when not known."""
    name = ctx.info.resolve(expr)
    if name in ("row_major", "col_major"):
        return f"ct.{name}"
    if isinstance(expr, ast.Call) and ctx.info.resolve(expr.func) == "grouped":
        args = call_args(expr)
        if len(args) == 1 and not args[0].star and args[0].name is None:
            group = literal_value(args[0].value)
            if isinstance(group, int) and not isinstance(group, bool) and group >= 1:
                return f"ct.grouped({group})"
    return None


def _bad_grid(ctx: Ctx, call: ast.Call, args: Bound, shape: Shape | None, tile: Shape | None,
              order: str | None) -> Diagnostic | None:
    """CT408 when the launch grid the partition needs is beyond the device's limits."""
    blocks = args.get("blocks")
    count = blocks[0].value if blocks is not None and isinstance(blocks[0], IntVal) else None
    slab = slab_grid(shape, tile)
    if slab is None or order is None or (blocks is not None and count is None):
        return None
    launch = launch_grid(slab, count is not None or order != "ct.row_major", count)
    problem = grid_problem(slab, launch)
    return None if problem is None else problem[0].at(ctx.span(call), **problem[1])


@HANDLERS.entry("partition", "unpartition")
def unpartition(ctx: Ctx, st: State, use: HostCall) -> Value:
    p = use.value
    assert isinstance(p, PartitionVal)
    read_args(ctx, st, use.call)
    site = ctx.span(use.node)
    move(st, p.obj, Moved(site, "by .unpartition()", ex_name(ctx, use.on), None,
                          tuple(ctx.loops)))
    return TensorVal(ctx.world.fresh(), p.storage, p.dtype, p.shape, p.frame, p.view, p.layout,
                     p.meta)


def _bad_partition(ctx: Ctx, st: State, call: ast.Call, args: Bound, shape: Shape | None,
                   name: str) -> Diagnostic | None:
    """The runtime's rules for the arguments (compiler/launch/tiles.py), in its order: the
    tile shape's kind, rank and extents (CT403, CT408, at it), then the order, then
    `blocks=` (at it)."""
    if "tile_shape" in args:
        value, expr = args["tile_shape"]
        problem = _tile_problem(_tile_items(ctx, st, value, expr), shape, name)
        if problem is not None:
            return _at(problem, ctx.span(expr))
    order = args.get("order")
    bad = None if order is None else _bad_order(ctx, st, order, call, shape)
    if bad is not None or "blocks" not in args:
        return bad
    value, expr = args["blocks"]
    problem = blocks_problem(_literal(value))
    return None if problem is None else _at(problem, ctx.span(expr))


def _at(problem: Problem, span: Span) -> Diagnostic:
    return Diagnostic(problem[0].code, problem[0].format(**problem[1]), span)


def _tile_problem(items: object, shape: Shape | None, name: str) -> Problem | None:
    """What the runtime says of this tile shape, as far as the analysis knows it."""
    if items is NOT_KNOWN:
        return None
    if not isinstance(items, tuple):
        return tile_kind_problem(items)
    return partition_tile_problem(items) or (
        tile_rank_problem(items, shape, name) if shape is not None else None)


def _tile_items(ctx: Ctx, st: State, value: Value, expr: ast.expr) -> object:
    """A tile shape's entries (None where unknown; literals as written: `(1.5,)`, `[64]`);
    what is no tile shape at all as it is (`None`); NOT_KNOWN when nothing is known."""
    if isinstance(value, TupleVal):
        return tuple(_literal(v) for v in value.items)
    if isinstance(expr, ast.List):  # taken as a tuple at run time
        listed = _listed(expr)
        return NOT_KNOWN if listed is None else listed
    known = known_object(ctx, st, value, expr)
    if known is NOT_KNOWN:
        return NOT_KNOWN
    items = as_tile(known)
    return known if items is None else items


def _tile_shape(ctx: Ctx, st: State, value: Value, expr: ast.expr) -> Shape | None:
    items = _tile_items(ctx, st, value, expr)
    return _ints(items) if isinstance(items, tuple) else None


def _ints(items: tuple[object, ...]) -> Shape:
    """Written extents as a shape: the ints kept, anything else unknown."""
    return tuple(d if isinstance(d, int) and not isinstance(d, bool) else None for d in items)


def _literal(value: Value) -> object:
    """The Python value of an int or a literal; None when the analysis does not know it."""
    return value.value if isinstance(value, (IntVal, LiteralVal)) else None


def _bad_order(ctx: Ctx, st: State, order: tuple[Value, ast.expr], call: ast.Call,
               shape: Shape | None) -> Diagnostic | None:
    """CT408 for a group size below 1 (at `ct.grouped(...)`, where the runtime raises it), an
    order that is no tile order, or a grouped order of a rank-1 partition (at the call)."""
    value, expr = order
    known = _order_object(ctx, st, value, expr, _group(ctx, expr))
    problem = None if known is NOT_KNOWN else order_problem(
        known, len(shape) if shape is not None else None)
    return None if problem is None else _at(problem, ctx.span(call))


def _group(ctx: Ctx, expr: ast.expr) -> object:
    """The literal group size of `ct.grouped(n)`; NOT_KNOWN for anything else."""
    if not (isinstance(expr, ast.Call) and ctx.info.resolve(expr.func) == "grouped"):
        return NOT_KNOWN
    args = call_args(expr)
    if len(args) != 1 or args[0].star or args[0].name is not None:
        return NOT_KNOWN
    group = literal_value(args[0].value)
    return NOT_KNOWN if group is None else group


def grouped(ctx: Ctx, st: State, call: ast.Call) -> Value:
    """`ct.grouped(n)`: CT408 at the call for a group size that is no int of at least 1, as
    `ct.grouped` raises it wherever it is called."""
    read_args(ctx, st, call)
    group = _group(ctx, call)
    detail = None if group is NOT_KNOWN else group_problem(group)
    if detail is not None:
        ctx.report(msg.BAD_PARTITION.at(ctx.span(call), detail=detail))
    return UNKNOWN


def _order_object(ctx: Ctx, st: State, value: Value, expr: ast.expr, group: object) -> object:
    """The order as the runtime gets it: a tile order, or a literal that is none (`'x'`);
    NOT_KNOWN when the analysis does not know it."""
    if head_name(expr) in st.env:
        return NOT_KNOWN
    name = ctx.info.resolve(expr)
    if name in ("row_major", "col_major"):
        return TileOrder(name)
    if isinstance(group, int) and not isinstance(group, bool):
        return TileOrder("grouped", group)
    if isinstance(expr, ast.Call):
        return NOT_KNOWN
    return known_object(ctx, st, value, expr)
