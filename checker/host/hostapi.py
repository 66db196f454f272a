"""Tensors made and moved: the constructors (`ct.zeros(...)`, every entry of effect CREATES),
`t.partition(...)` and `p.unpartition()`."""

from __future__ import annotations

import ast
from typing import cast

from ...compiler.dsl.markers import as_dtype
from ...compiler.dtypes import BY_NUMPY_NAME, DType
from ...compiler.hostapi import Effect
from ...compiler.hostapi.shapes import (
    count_problem,
    dtype_problem,
    fill_problem,
    float_dtype_problem,
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
    tile_kind_problem,
    tile_rank_problem,
)
from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Diagnostic
from ...reader.source import literal_value
from .context import Ctx
from .handlers import Bound, Handlers, HostCall, bind, read_args
from .launches import slab_grid
from .leases import write_in_use
from .literals import NOT_KNOWN, known_object
from .syntax import call_args
from .uses import ex_name
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
    args = bind(ctx, st, use.call, entry)
    if args is not None:
        problem, dtype = _argument_problem(ctx, st, entry.name, args)
        if problem is not None:
            ctx.report(problem[0].at(ctx.span(use.call), **problem[1]))
            return UNKNOWN
    shape: Shape | None = None
    if args is not None and "n" in entry.positional:
        n = args.get("n")
        shape = (n[0].value if n and isinstance(n[0], IntVal) else None,)
    elif args is not None and "shape" in args:
        shape = shape_of(args["shape"][0])
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


# The runtime's order of checks per constructor (runtime/constructors.py): the first problem
# is the one raised. Every other constructor checks its shape, then its dtype.
_ORDER: dict[str, tuple[str, ...]] = {
    "arange": ("n", "shape", "dtype"), "full": ("shape", "dtype", "value"),
    "rand": ("shape", "seed", "dtype", "float"), "randn": ("shape", "seed", "dtype", "float"),
    "from_numpy": ("dtype",), "from_dlpack": ()}


def _argument_problem(ctx: Ctx, st: State, name: str, args: Bound
                      ) -> tuple[Problem | None, DType | None]:
    """The first problem the runtime raises for the arguments the analysis knows, and the
    dtype where it is known."""
    what = f"ct.{name}"
    dtype: DType | None = None
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
            if given is not NOT_KNOWN and not (given is None and name == "from_numpy"):
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
    a literal as written (`(1.5,)`), or ints it computed."""
    shape: object = literal_value(expr)
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
    if write_in_use(ctx, st, receiver, t, use.entry.action) or args is None:
        return UNKNOWN
    tile = shape_of(args["tile_shape"][0]) if "tile_shape" in args else None
    order = _order(ctx, args["order"][1]) if "order" in args else "ct.row_major"
    problem = _bad_partition(ctx, args, t.shape, name) or _bad_grid(ctx, call, args, t.shape,
                                                                     tile, order)
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


def _bad_partition(ctx: Ctx, args: Bound, shape: Shape | None,
                   name: str) -> Diagnostic | None:
    """The runtime's rules for the arguments (compiler/launch/tiles.py), at the argument:
    the tile shape's kind, rank and extents (CT403, CT408), then `blocks=` and the order."""
    checks: list[tuple[Problem | None, ast.expr]] = []
    if "tile_shape" in args:
        value, expr = args["tile_shape"]
        checks.append((_tile_problem(value, shape, name), expr))
    if "blocks" in args:
        value, expr = args["blocks"]
        checks.append((blocks_problem(_literal(value)), expr))
    for problem, where in checks:
        if problem is not None:
            return Diagnostic(problem[0].code, problem[0].format(**problem[1]), ctx.span(where))
    order = args.get("order")
    return None if order is None else _bad_order(ctx, order[1])


def _tile_problem(value: Value, shape: Shape | None, name: str) -> Problem | None:
    """What the runtime says of this tile shape, as far as the analysis knows it."""
    if isinstance(value, LiteralVal) and as_tile(value.value) is None:
        return tile_kind_problem(value.value)
    items = _tile_items(value)
    if items is None:
        return None
    return partition_tile_problem(items) or (
        tile_rank_problem(items, shape, name) if shape is not None else None)


def _tile_items(value: Value) -> tuple[object, ...] | None:
    """A tile shape's entries (None where unknown; literals as written: `(1.5,)`)."""
    if isinstance(value, (IntVal, LiteralVal)):
        return as_tile(value.value)
    if isinstance(value, TupleVal):
        return tuple(_literal(v) for v in value.items)
    return None


def _literal(value: Value) -> object:
    """The Python value of an int or a literal; None when the analysis does not know it."""
    return value.value if isinstance(value, (IntVal, LiteralVal)) else None


def _bad_order(ctx: Ctx, expr: ast.expr) -> Diagnostic | None:
    if not (isinstance(expr, ast.Call) and ctx.info.resolve(expr.func) == "grouped"):
        return None
    args = call_args(expr)
    if len(args) != 1 or args[0].star or not isinstance(args[0].value, (ast.Constant,
                                                                         ast.UnaryOp)):
        return None
    group = literal_value(args[0].value)
    if isinstance(group, int) and not isinstance(group, bool) and group < 1:
        return msg.BAD_PARTITION.at(
            ctx.span(expr), detail=f"ct.grouped() needs a group size of at least 1, got {group}")
    return None
