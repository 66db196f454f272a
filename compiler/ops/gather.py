"""Data-dependent memory access: `ct.gather`, `x.load_at` and (unsafe kernels only) `ct.scatter`.

Reads of shared inputs are always safe, so gathers are ordinary operations: `ct.gather(x,
indices)` reads one element per index tuple (one integer tile per axis of `x`, broadcast
together) and `x.load_at(shape, offsets)` reads a tile at element offsets (not multiples of the
tile). Elements outside the tensor read `padding`. A scatter writes shared memory at arbitrary
places, which may race between blocks: it exists only in `@ct.kernel(unsafe=True)` (CT112), and
elements outside the tensor are dropped. All three lower to pointer tiles (`lower/pointers.py`);
the interpreter's semantics are `runtime/interpreter/gathers.py`.
"""

from __future__ import annotations

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..dtypes import BOOL, I32
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, TupleVal, none_value
from ..ir import Value
from ..types import ConstType, Shape, SlabType, TensorType, TileType, describe, fmt_shape
from .defs import ir_op
from .indices import index_values
from .memory import tensor
from .padding import PAD_PARAM, padding_attrs
from .registry import Call, function, method

# The interpreter (memory) and the lowerer (pointer tiles, tokens) implement these.
for _name in ("gather", "load_at", "scatter"):
    ir_op(_name)


def _index_tile(b: Builder, arg: Arg, what: str) -> Value:
    """One axis's indices: an integer tile of any shape, or an int (a rank-0 i32 tile)."""
    v = b.tile_or_const(arg, what)
    if isinstance(v.type, ConstType):
        if v.type.kind != "int":
            b.fail(msg.BAD_OPERAND, arg.span, op=what, what=f"{describe(v.type)} as an index "
                   "(indices are integer tiles or ints)")
        return b.materialize(v, I32, arg.span)
    assert isinstance(v.type, TileType)
    if not v.type.dtype.is_integer:
        b.fail(msg.BAD_OPERAND, arg.span, op=what, what=f"{describe(v.type)} as an index "
               "(indices are integer tiles; convert with .astype(i32))")
    return v


def _indices(b: Builder, arg: Arg, x: Value, what: str) -> list[tuple[Value, Arg]]:
    """The index tiles of `indices`: a tuple with one per axis of x (a bare tile for rank 1)."""
    assert isinstance(x.type, TensorType)
    v = b.known(arg)
    items = list(v.items) if isinstance(v, TupleVal) else [v]
    rank = x.type.rank
    if len(items) != rank:
        want = "an index tile" if rank == 1 else f"a tuple of {rank} index tiles"
        b.fail(msg.GATHER_INDICES, arg.span, what=what, want=want, rank=rank,
               name=x.name or "x", given=f"{len(items)} ind{'ex' if len(items) == 1 else 'ices'}")
    return [(_index_tile(b, Arg(i, arg.span), what), Arg(i, arg.span)) for i in items]


def _common_shape(b: Builder, tiles: list[Value], span: Span, op: str) -> Shape:
    shape: Shape = ()
    for t in tiles:
        assert isinstance(t.type, TileType)
        new = b.broadcast_shapes(shape, t.type.shape)
        if new is None:
            b.fail(msg.NOT_BROADCASTABLE, span, op=op, a=fmt_shape(shape),
                   b=fmt_shape(t.type.shape))
        shape = new
    return shape


@function("gather", "x: Any, indices: Any, " + PAD_PARAM,
          "elements of `x` at index tiles (one per axis, broadcast); `padding` outside", "memory")
def _gather(b: Builder, c: Call) -> FValue:
    x = tensor(b, c["x"], "gather", mutable=False)
    assert isinstance(x.type, TensorType)
    idx = [t for t, _ in _indices(b, c["indices"], x, "gather()")]
    shape = _common_shape(b, idx, c["indices"].span, "gather with indices of")
    pad = padding_attrs(b, c["padding"], x.type.dtype, "gather()")
    idx = [_rank_to(b, t, len(shape), c.span) for t in idx]
    return b.emit1("gather", [x, *idx], TileType(x.type.dtype, shape), c.span, **pad)


def _rank_to(b: Builder, t: Value, rank: int, span: Span) -> Value:
    """An index tile with leading 1s up to `rank`, not broadcast: the address arithmetic of an
    axis runs at its own index's size (lower/pointers.py), which broadcasts at the end."""
    assert isinstance(t.type, TileType)
    if t.type.rank == rank:
        return t
    shape = (1,) * (rank - t.type.rank) + t.type.shape
    return b.emit1("reshape", [t], TileType(t.type.dtype, shape), span, shape=shape)


@method("tensor", "load_at", "shape: Any, offsets: Any, " + PAD_PARAM,
        "the tile of `shape` at element `offsets`; `padding` outside", "memory")
def _load_at(b: Builder, c: Call) -> FValue:
    x = tensor(b, c["self"], "load_at", mutable=False)
    assert isinstance(x.type, TensorType)
    shape = b.tile_shape(c["shape"], "the shape of load_at()")
    if len(shape) != x.type.rank:
        b.fail(msg.RANK_NEEDED, c["shape"].span, what="the shape of load_at()",
               want=x.type.rank, shape=fmt_shape(shape))
    offsets = index_values(b, c["offsets"], x.type.rank, "the offsets of load_at()")
    pad = padding_attrs(b, c["padding"], x.type.dtype, "load_at()")
    return b.emit1("load_at", [x, *offsets], TileType(x.type.dtype, shape), c.span,
                   shape=shape, **pad)


@function("scatter", "y: Any, indices: Any, values: Any, *, mask: Any = None",
          "writes `values` at index tiles of `y` (unsafe kernels; outside elements dropped)",
          "memory", returns="None")
def _scatter(b: Builder, c: Call) -> FValue:
    target = b.known(c["y"])
    if isinstance(target, Value) and isinstance(target.type, (TensorType, SlabType)) and (
            isinstance(target.type, SlabType) or target.type.mutable):
        b.fail(msg.SCATTER_INTO_MUT, c["y"].span, name=target.name or "z")
    if not b.unsafe:
        b.fail(msg.UNSAFE_ONLY, c.span, what="ct.scatter (it may race between blocks)")
    y = tensor(b, c["y"], "scatter", mutable=False)
    assert isinstance(y.type, TensorType)
    idx = [t for t, _ in _indices(b, c["indices"], y, "scatter()")]
    values = _values(b, c["values"], y)
    mask = _mask(b, c["mask"])
    parts = idx + [values] + ([mask] if mask is not None else [])
    shape = _common_shape(b, parts, c.span, "scatter indices and values of")
    out = [_rank_to(b, t, len(shape), c.span) for t in idx]
    out += [b.broadcast(t, shape, c.span) for t in parts[len(idx):]]
    b.emit("scatter", [y, *out], [], c.span, {"masked": mask is not None})
    return none_value(c.span)


def _values(b: Builder, arg: Arg, y: Value) -> Value:
    assert isinstance(y.type, TensorType)
    v = b.tile_or_const(arg, "scatter()")
    if isinstance(v.type, ConstType):
        return b.materialize(v, y.type.dtype, arg.span)
    assert isinstance(v.type, TileType)
    if v.type.dtype != y.type.dtype:
        b.fail(msg.SCATTER_TYPE, arg.span, got=str(v.type.dtype), name=y.name or "y",
               dtype=y.type.dtype, hint=f"; convert with .astype({y.type.dtype})")
    return v


def _mask(b: Builder, arg: Arg) -> Value | None:
    if b.is_none(arg):
        return None
    m = b.tile(arg, "the mask of scatter()")
    assert isinstance(m.type, TileType)
    if m.type.dtype != BOOL:
        b.fail(msg.BAD_OPERAND, arg.span, op="the mask of scatter()",
               what=f"{describe(m.type)} (it needs a bool tile, e.g. i < n)")
    return m
