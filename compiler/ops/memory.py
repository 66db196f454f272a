"""Block ids, loads and stores: tensors, Mut slabs and partitions."""

from __future__ import annotations

from typing import Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Note, Span
from ..dtypes import I32, DType
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, SlabVal, TupleVal, const_value, none_value
from ..ir import Value
from ..types import (
    SCALAR_I32,
    Dim,
    PartitionType,
    Shape,
    SymInt,
    TensorType,
    TileType,
    describe,
    fmt_shape,
)
from .accumulate import acc_read
from .indices import index_values
from .load_hints import HINT_PARAMS, load_hints
from .padding import PAD_PARAM, padding_attrs
from .registry import Call, function, method


def _axis(b: Builder, arg: Arg, what: str) -> int:
    axis = b.static_int(arg, what)
    if not 0 <= axis <= 2:
        b.fail(msg.BAD_GRID_AXIS, arg.span, axis=axis)
    return axis


@function("block_id", "axis: int", "this block's coordinate on grid axis 0-2", "blocks")
def _block_id(b: Builder, c: Call) -> FValue:
    axis = _axis(b, c["axis"], "the axis of block_id()")
    return b.emit1("block_id", [], SCALAR_I32, c.span, axis=axis)


@function("num_blocks", "axis: int", "the grid's extent on axis 0-2", "blocks")
def _num_blocks(b: Builder, c: Call) -> FValue:
    axis = _axis(b, c["axis"], "the axis of num_blocks()")
    return b.emit1("num_blocks", [], SCALAR_I32, c.span, axis=axis)


def tensor(b: Builder, arg: Arg, what: str, mutable: bool | None = None) -> Value:
    v = b.known(arg)
    if isinstance(v, Value) and isinstance(v.type, TensorType) and v.type.acc is not None:
        acc_read(b, arg, what, arg.span)  # an Acc is never read (CT216)
    if not isinstance(v, Value) or not isinstance(v.type, TensorType) or (
            mutable is not None and v.type.mutable != mutable):
        kind = {True: "a Mut tensor", False: "a read-only tensor", None: "a tensor"}[mutable]
        got = "a tuple" if isinstance(v, TupleVal) else describe(v.type)
        b.fail(msg.BAD_OPERAND, arg.span, op=what, what=f"{got} (it needs {kind})")
    return v


def mut_target(b: Builder, arg: Arg, what: str) -> tuple[Value, list[Value]]:
    """A Mut tensor or a slab of one (`zt` of `for zt in z.tiles()`), as the tensor and the
    coordinates of the tile this block works on."""
    v = b.known(arg)
    if isinstance(v, SlabVal) and v.base is not None:
        return v.base, list(v.index)
    z = tensor(b, arg, what, mutable=True)
    return z, tile_index(b, z, arg.span)


def tile_index(b: Builder, z: Value, span: Span) -> list[Value]:
    """This block's tile coordinates in z's partition (following the partition's order)."""
    assert isinstance(z.type, TensorType)
    op = b.emit("tile_index", [z], [SCALAR_I32] * z.type.rank, span)
    return op.results


def check_tile_index(b: Builder, idx: list[Value], arg: Arg, tile: Shape,
                     shape: Shape | None) -> None:
    """CT404 when the tile index provably leaves the grid of `shape` cut into `tile`s: a
    negative index always, one past the last tile when the extent is static (a Const's value
    at specialization). Index values without a certain range stay unchecked (ranges.py)."""
    reached = [b.ranges.reached(v, b.blocks) for v in idx]
    grid = [_tiles(shape[a], tile[a]) if shape is not None else None for a in range(len(idx))]
    for axis, (r, n) in enumerate(zip(reached, grid, strict=True)):
        if r is None or (r.lo >= 0 and (n is None or r.hi < n)):
            continue
        value = r.lo if r.lo < 0 else r.hi
        shown = _fmt([value if a == axis else x.lo if x is not None and x.lo == x.hi else "_"
                      for a, x in enumerate(reached)])
        notes = (Note(msg.INDEX_LOOP_NOTE.format(name=r.loop.var.name or "i", lo=r.loop.lo,
                                                 hi=r.loop.hi, value=value), r.loop.span),) \
            if r.loop is not None else ()
        if r.lo < 0:
            b.fail(msg.NEGATIVE_TILE_INDEX, arg.span, notes=notes, index=shown, axis=axis)
        b.fail(msg.INDEX_OUT_OF_RANGE, arg.span, notes=notes, index=shown,
               grid=_fmt(["?" if g is None else g for g in grid]))


def _fmt(items: list[object]) -> str:
    return "(" + ", ".join(map(str, items)) + ("," if len(items) == 1 else "") + ")"


def _tiles(extent: object, tile: object) -> int | None:
    """How many tiles of `tile` cover a static `extent` (None: dynamic or symbolic)."""
    if isinstance(extent, int) and isinstance(tile, int) and extent >= 0 and tile > 0:
        return -(-extent // tile)
    return None


LOAD_PARAMS = PAD_PARAM + ", " + HINT_PARAMS  # the keywords every view load takes


def _load_attrs(b: Builder, c: Call, dtype: DType, what: str) -> dict[str, Any]:
    """A load's padding and memory hints, as the IR op's attributes."""
    return {**padding_attrs(b, c["padding"], dtype, what), **load_hints(b, c, what)}


@function("load_tile_like", "x: Any, z: Any, " + LOAD_PARAMS,
          "`x` read over the Mut slab `z`: one tile of `z.tile_shape`, `padding` past the "
          "slab and past `x`", "memory")
def _load_tile_like(b: Builder, c: Call) -> FValue:
    x = tensor(b, c["x"], "load_tile_like")
    z, idx = mut_target(b, c["z"], "load_tile_like")
    if isinstance(x.type, TensorType) and x.type.mutable and x is not z:
        # another Mut's elements at z's slab may be a neighbour block's slab of it: a race
        b.fail(msg.BAD_OPERAND, c["x"].span, op="load_tile_like",
               what=f"the Mut tensor {_shown(c['x'], x)} (it needs a read-only tensor; "
                    f"a block reads its own slab with {_shown(c['x'], x)}.load())")
    assert isinstance(x.type, TensorType) and isinstance(z.type, TensorType)
    if x.type.rank != z.type.rank:
        b.fail(msg.LOAD_LIKE_RANK, c.span, a=x.name or "x", ra=x.type.rank,
               b=c["z"].value.name if isinstance(c["z"].value, Value) else "z",
               rb=z.type.rank)
    attrs = _load_attrs(b, c, x.type.dtype, "load_tile_like()")
    # x over z's slab as one tile: the slab's shape must be static
    whole = _whole_slab(b, c["z"].span, z, "load_tile_like()", "load(shape, index)",
                        _shown(c["z"], z))
    out = TileType(x.type.dtype, whole)
    if whole == z.type.shape:  # the slab is one tile: x's tile at the slab's tile index
        return b.emit1("load", [x, *idx], out, c.span, shape=whole, **attrs)
    return _read_slab(b, c, x, z, idx, out, attrs)


def _read_slab(b: Builder, c: Call, src: Value, z: Value, idx: list[Value], out: TileType,
               attrs: dict[str, Any]) -> Value:
    """`slab_load`: the tile of `out`'s shape at the origin of z's slab (slab coordinates
    `idx`), read from `src` (z itself, or a tensor read over z's slab): elements past the
    slab's extents (a neighbour's slab) or outside `src` read the padding."""
    zeros = [b.materialize(const_value(c.span, 0), I32, c.span) for _ in idx]
    return b.emit1("slab_load", [src, z, *idx, *zeros], out, c.span, shape=out.shape, **attrs)


@method("mut", "store", "tile: Any, index: Any = None",
        "write this block's slab, or a tile inside it at `index`", "memory", returns="None")
def _store(b: Builder, c: Call) -> FValue:
    z, idx = mut_target(b, c["self"], "store")
    assert isinstance(z.type, TensorType)
    name = _shown(c["self"], z)
    if _given(b, c["index"]):
        return _store_in_slab(b, c, z, idx, name)
    whole = _whole_slab(b, c.span, z, f"{name}.store(t)", "store(t, index)", name)
    value = b.tile_or_const(c["tile"], "store")
    if isinstance(value.type, TileType):
        _check_store(b, c, value.type, z.type, name, whole)
        tile = value
    else:
        tile = b.broadcast(b.materialize(value, z.type.dtype, c["tile"].span), whole, c.span)
    if whole == z.type.shape:  # the slab is one tile: its own partition view
        b.emit("store", [z, tile, *idx], [], c.span)
    else:
        zeros = [b.materialize(const_value(c.span, 0), I32, c.span) for _ in idx]
        b.emit("slab_store", [z, tile, *idx, *zeros], [], c.span)
    return none_value(c.span)


def _given(b: Builder, arg: Arg) -> bool:
    """Whether an optional argument was given (not left at its None default)."""
    v = b.known(arg)
    return not (isinstance(v, Value) and v.const is None and v.is_const)


def _store_in_slab(b: Builder, c: Call, z: Value, idx: list[Value], name: str) -> FValue:
    """`z.store(t, index)`: the tile at `index` (in tiles of t's shape) inside the slab."""
    assert isinstance(z.type, TensorType)
    value = b.tile_or_const(c["tile"], "store")
    if not isinstance(value.type, TileType):
        b.fail(msg.FOREIGN_TILE_INDEX, c["index"].span, name=name,
               why="a number has no tile shape to count the index in (store a tile)")
    t = value.type
    if t.dtype != z.type.dtype or t.rank != z.type.rank:
        hint = f"; convert with .astype({z.type.dtype})" if t.dtype != z.type.dtype \
            else f"; it needs rank {z.type.rank}"
        b.fail(msg.STORE_INDEXED_TYPE, c["tile"].span, got=f"{t.dtype} {fmt_shape(t.shape)}",
               name=name, rank=z.type.rank, dtype=z.type.dtype, hint=hint)
    inner = index_values(b, c["index"], z.type.rank, "the store index")
    if _covers(t.shape, z.type.shape) and not _origin(b.known(c["index"])) and \
            not _always_zero(b, inner):
        b.fail(msg.FOREIGN_TILE_INDEX, c["index"].span, name=name,
               why=f"the tile covers the whole slab {fmt_shape(z.type.shape)}, so only the "
               f"origin is inside it: write {name}.store(tile)")
    check_tile_index(b, inner, c["index"], t.shape, None)  # negative: never inside the slab
    b.emit("slab_store", [z, value, *idx, *inner], [], c.span)
    return none_value(c.span)


def _origin(index: FValue) -> bool:
    """Whether an index is the literal origin (0, ..., 0)."""
    items = index.items if isinstance(index, TupleVal) else (index,)
    return all(isinstance(i, Value) and i.is_const and i.const == 0
               and not isinstance(i.const, bool) for i in items)


def _always_zero(b: Builder, index: list[Value]) -> bool:
    """Whether every index value is 0 on every path (`g` of `for g in range(G)` with G = 1:
    a kernel written for any G stores its one tile at the origin)."""
    reached = [b.ranges.reached(v, b.blocks) for v in index]
    return all(r is not None and r.lo == r.hi == 0 for r in reached)


def _covers(tile: Shape, slab: Shape) -> bool:
    return all(isinstance(t, int) and isinstance(s, int) and s >= 0 and t >= s
               for t, s in zip(tile, slab, strict=True))


def tile_shape_of(slab: Shape) -> Shape | None:
    """The slab's extents rounded up to powers of two (None where an extent is dynamic)."""
    out: list[Dim] = []
    for d in slab:
        if isinstance(d, SymInt):
            out.append(d)  # known at specialization, checked again there
        elif d < 0:
            return None
        else:
            out.append(1 << max(0, (d - 1).bit_length()))
    return tuple(out)


def _whole_slab(b: Builder, span: Span, z: Value, what: str, form: str, name: str) -> Shape:
    """The tile shape of whole-slab access, or CT215 for a slab with a dynamic extent."""
    assert isinstance(z.type, TensorType)
    shape = tile_shape_of(z.type.shape)
    if shape is None:
        b.fail(msg.SLAB_DYNAMIC, span, what=what, name=name, form=form,
               shape=fmt_shape(z.type.shape).replace("-1", "dynamic"))
    return shape


def _shown(arg: Arg, z: Value) -> str:
    """The name the user wrote for a Mut receiver: the slab's own name inside a tiles loop."""
    v = arg.value
    return (v.name if isinstance(v, Value) else None) or z.name or "z"


def _check_store(b: Builder, c: Call, t: TileType, z: TensorType, name: str,
                 whole: Shape) -> None:
    hint = ""
    if t.dtype != z.dtype:
        hint = f"; convert with .astype({z.dtype})"
    same_shape = len(t.shape) == len(whole) and all(
        a == bb or not isinstance(a, int) or not isinstance(bb, int)
        for a, bb in zip(t.shape, whole, strict=True))
    if hint or not same_shape:
        want = f"{z.dtype} {fmt_shape(whole)}"
        if whole != z.shape:
            want += f" (z.tile_shape of the slab {fmt_shape(z.shape)})"
        b.fail(msg.STORE_TYPE, c["tile"].span, got=f"{t.dtype} {fmt_shape(t.shape)}", name=name,
               want=want, hint=hint)


@method("tensor", "store", "tile: Any, index: Any", "index-addressed store (unsafe kernels)",
        "memory", returns="None")
def _store_shared(b: Builder, c: Call) -> FValue:
    """Index-addressed store into a shared tensor: unsafe kernels only (no disjointness)."""
    x = tensor(b, c["self"], "store", mutable=False)
    assert isinstance(x.type, TensorType)
    if not b.unsafe:
        b.fail(msg.UNSAFE_ONLY, c.span, what=f"storing into the read-only tensor "
               f"'{x.name or 'x'}' by index")
    value = b.tile(c["tile"], "store")
    assert isinstance(value.type, TileType)
    if value.type.dtype != x.type.dtype or value.type.rank != x.type.rank:
        hint = f"; convert with .astype({x.type.dtype})" if value.type.dtype != x.type.dtype \
            else f"; it needs rank {x.type.rank}"
        b.fail(msg.STORE_INDEXED_TYPE, c["tile"].span, got=f"{value.type.dtype} "
               f"{fmt_shape(value.type.shape)}", name=x.name or "x", rank=x.type.rank,
               dtype=x.type.dtype, hint=hint)
    idx = index_values(b, c["index"], x.type.rank, "the store index")
    check_tile_index(b, idx, c["index"], value.type.shape, x.type.shape)
    b.emit("store", [x, value, *idx], [], c.span)
    return none_value(c.span)


@method("mut", "load", "shape: Any = None, index: Any = None, " + LOAD_PARAMS,
        "read this block's slab, or the tile of `shape` at `index` inside it", "memory")
def _load_mut(b: Builder, c: Call) -> FValue:
    z, idx = mut_target(b, c["self"], "load")
    assert isinstance(z.type, TensorType)
    attrs = _load_attrs(b, c, z.type.dtype, "load()")
    name = _shown(c["self"], z)
    if _given(b, c["shape"]):
        shape = _tile_shape_for(b, c["shape"], z.type, "the shape of load()")
        if not _given(b, c["index"]):
            b.fail(msg.INDEX_RANK, c.span, what=f"{name}.load(shape, index)",
                   want="an index" if z.type.rank == 1 else f"a tuple of {z.type.rank} indices",
                   rank=z.type.rank, given="none")
        inner = index_values(b, c["index"], z.type.rank, "load()")
        check_tile_index(b, inner, c["index"], shape, None)
        return b.emit1("slab_load", [z, z, *idx, *inner], TileType(z.type.dtype, shape),
                       c.span, shape=shape, **attrs)
    whole = _whole_slab(b, c.span, z, f"{name}.load()", "load(shape, index)", name)
    if whole == z.type.shape:  # the slab is one tile: its own partition view
        return b.emit1("load", [z, *idx], TileType(z.type.dtype, whole), c.span, shape=whole,
                       **attrs)
    return _read_slab(b, c, z, z, idx, TileType(z.type.dtype, whole), attrs)


def slab_attr(b: Builder, arg: Arg, attr: str, span: Span) -> FValue:
    """`z.shape` (the slab's extents; dynamic ones clipped at the tensor's edge, as i32) and
    `z.tile_shape` (rounded up to powers of two) of a Mut slab."""
    v = b.known(arg)  # static facts need no slab: a persistent kernel may read them anywhere
    z = v.base if isinstance(v, SlabVal) and v.base is not None else \
        tensor(b, arg, attr, mutable=True)
    assert isinstance(z.type, TensorType)
    if attr == "tile_shape":
        name = _shown(arg, z)
        shape = _whole_slab(b, span, z, f"{name}.tile_shape", "load(shape, index)", name)
        return TupleVal(tuple(const_value(span, d) for d in shape))
    items: list[FValue] = []
    idx: list[Value] | None = None
    for axis, d in enumerate(z.type.shape):
        if isinstance(d, int) and d < 0:  # this block's slab's extent: its coordinates
            idx = idx or mut_target(b, arg, attr)[1]
            items.append(b.emit1("slab_extent", [z, *idx], SCALAR_I32, span, axis=axis))
        else:
            items.append(const_value(span, d))
    return TupleVal(tuple(items))


@method("mut", "tile_index", "", "the slab's tile coordinates", "memory", returns="Any")
def _tile_index(b: Builder, c: Call) -> FValue:
    return TupleVal(tuple(mut_target(b, c["self"], "tile_index")[1]))


def _tile_shape_for(b: Builder, arg: Arg, t: TensorType, what: str) -> Shape:
    shape = b.tile_shape(arg, what)
    if len(shape) != t.rank:
        b.fail(msg.RANK_NEEDED, arg.span, what=what, want=t.rank, shape=fmt_shape(shape))
    return shape


@method("tensor", "load_tile", "shape: Any, index: Any, " + LOAD_PARAMS,
        "the tile of `shape` at tile `index`", "memory")
def _load_tile(b: Builder, c: Call) -> FValue:
    x = tensor(b, c["self"], "load_tile", mutable=False)
    assert isinstance(x.type, TensorType)
    shape = _tile_shape_for(b, c["shape"], x.type, "the shape of load_tile()")
    idx = index_values(b, c["index"], x.type.rank, "load_tile()")
    check_tile_index(b, idx, c["index"], shape, x.type.shape)
    attrs = _load_attrs(b, c, x.type.dtype, "load_tile()")
    return b.emit1("load", [x, *idx], TileType(x.type.dtype, shape), c.span, shape=shape,
                   **attrs)


@method("tensor", "partition", "shape: Any", "a read-only view as a grid of tiles", "memory")
def _partition(b: Builder, c: Call) -> FValue:
    x = tensor(b, c["self"], "partition", mutable=False)
    assert isinstance(x.type, TensorType)
    shape = _tile_shape_for(b, c["shape"], x.type, "the tile shape of partition()")
    return b.emit1("partition", [x], PartitionType(x.type, shape), c.span, shape=shape)


def _partition_arg(b: Builder, arg: Arg, what: str) -> Value:
    p = b.known(arg)
    if not isinstance(p, Value) or not isinstance(p.type, PartitionType):
        got = "a tuple" if isinstance(p, TupleVal) else describe(p.type)
        b.fail(msg.BAD_OPERAND, arg.span, op=what, what=f"{got} (it needs x.partition(shape))")
    return p


@method("partition", "load", "index: Any, " + LOAD_PARAMS,
        "the tile at `index`; `latency` (1-10) and `allow_tma` are tileiras memory hints",
        "memory")
def _partition_load(b: Builder, c: Call) -> FValue:
    p = _partition_arg(b, c["self"], "load")
    assert isinstance(p.type, PartitionType)
    idx = index_values(b, c["index"], len(p.type.tile), "load()")
    check_tile_index(b, idx, c["index"], p.type.tile, p.type.tensor.shape)
    attrs = _load_attrs(b, c, p.type.tensor.dtype, "load()")
    return b.emit1("load", [p, *idx], TileType(p.type.tensor.dtype, p.type.tile), c.span,
                   shape=p.type.tile, **attrs)


@function("num_tiles", "p: Any, axis: int", "the number of tiles of a partition along `axis`",
          "memory")
def _num_tiles(b: Builder, c: Call) -> FValue:
    p = _partition_arg(b, c["p"], "num_tiles")
    assert isinstance(p.type, PartitionType)
    axis = b.static_int(c["axis"], "the axis of num_tiles()")
    rank = len(p.type.tile)
    if not -rank <= axis < rank:
        b.fail(msg.BAD_AXIS, c["axis"].span, axis=axis, rank=rank)
    return b.emit1("num_tiles", [p], SCALAR_I32, c.span, axis=axis % rank)
