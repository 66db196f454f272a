"""Static sub-tiles: `t[:, 0:64]`, `ct.split(t, n, axis)` and `ct.extract(t, index, shape)`.

Each names a block of a tile whose extents are powers of two and whose start is a multiple of its
extent, so it is one slice of Tile IR's `extract`. Bounds and indices are compile-time constants
that the frontend checks (CT201): Tile IR leaves an out-of-range extract undefined."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, Poisoned, TupleVal
from ..ir import Value
from ..lower.types import I32_TILE, OpCtx
from ..types import Shape, TileType, Type, fmt_shape
from .defs import ir_op, numpy
from .registry import Call, function
from .shape import norm_axis

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

# One subscript item: an int index (drops the axis) or a slice (start, stop, step; None = omitted)
SliceItem = int | tuple[object, object, object]


def sub_tile(b: Builder, x: Value, index: tuple[int, ...], shape: tuple[int, ...],
             span: Span) -> Value:
    """The block `index` (counted in blocks of `shape`) of tile x."""
    assert isinstance(x.type, TileType)
    return b.emit1("extract", [x], TileType(x.type.dtype, shape), span, index=index,
                   shape=shape)


def _static_tile(b: Builder, arg: Arg, what: str) -> tuple[Value, tuple[int, ...]]:
    x = b.tile(arg, what)
    assert isinstance(x.type, TileType)
    return x, _static(x.type.shape)


def _static(shape: Shape) -> tuple[int, ...]:
    """A shape's ints; a Const dimension not yet specialized leaves the result unknown."""
    out = []
    for d in shape:
        if not isinstance(d, int):
            raise Poisoned
        out.append(d)
    return tuple(out)


def slice_tile(b: Builder, arg: Arg, items: Sequence[SliceItem], spans: Sequence[Span],
               span: Span) -> FValue:
    """`t[items]`: slices keep their axis, int indices drop it."""
    for item, where in zip(items, spans, strict=False):
        if isinstance(item, tuple) and item[2] not in (None, 1):
            b.fail(msg.SLICE_STEP, where, step=item[2])
    x, dims = _static_tile(b, arg, "indexing")
    if len(items) > len(dims):
        b.fail(msg.RANK_NEEDED, span, what="this subscript", want=f"{len(items)} or more",
               shape=fmt_shape(dims))
    index, shape, keep = [], [], []
    for axis, dim in enumerate(dims):
        item = items[axis] if axis < len(items) else (None, None, None)
        where = spans[axis] if axis < len(spans) else span
        start, stop = _bounds(b, item, dim, axis, where)
        n = stop - start
        if isinstance(item, tuple):
            b.check_pow2((n,), where)
            if start % n:
                b.fail(msg.SLICE_ALIGN, where, slice=f"{start}:{stop}", axis=axis, n=n)
            keep.append(n)
        index.append(start // n)
        shape.append(n)
    out = sub_tile(b, x, tuple(index), tuple(shape), span)
    if len(keep) == len(shape):
        return out
    assert isinstance(out.type, TileType)
    return b.emit1("reshape", [out], TileType(out.type.dtype, tuple(keep)), span,
                   shape=tuple(keep))


def _bounds(b: Builder, item: SliceItem, dim: int, axis: int, where: Span) -> tuple[int, int]:
    if isinstance(item, int):
        i = item + dim if item < 0 else item
        if not 0 <= i < dim:
            b.fail(msg.SLICE_RANGE, where, slice=str(item), axis=axis, dim=dim)
        return i, i + 1
    lo, hi, _ = item
    start = _end(lo, 0, dim)
    stop = _end(hi, dim, dim)
    if not 0 <= start < stop <= dim:
        shown = f"{'' if lo is None else lo}:{'' if hi is None else hi}"
        b.fail(msg.SLICE_RANGE, where, slice=shown, axis=axis, dim=dim)
    return start, stop


def _end(value: object, default: int, dim: int) -> int:
    if value is None:
        return default
    assert isinstance(value, int)
    return value + dim if value < 0 else value


@function("extract", "x: Any, index: Any, shape: Any",
          "the block `index` of a tile, counted in blocks of `shape` (static)", "shape")
def _extract(b: Builder, c: Call) -> FValue:
    x, dims = _static_tile(b, c["x"], "extract")
    shape = b.tile_shape(c["shape"], "the shape of extract()")
    if len(shape) != len(dims):
        b.fail(msg.RANK_NEEDED, c["shape"].span, what="the shape of extract()", want=len(dims),
               shape=fmt_shape(shape))
    sizes = _static(shape)
    if any(d % s for d, s in zip(dims, sizes, strict=True)):
        b.fail(msg.SUBTILE_SHAPE, c["shape"].span, shape=fmt_shape(sizes), of=fmt_shape(dims))
    raw = b.static_const(c["index"], "the index of extract()")
    index = raw if isinstance(raw, tuple) else (raw,)
    grid = tuple(d // s for d, s in zip(dims, sizes, strict=True))
    if len(index) != len(dims) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < g
            for i, g in zip(index, grid, strict=False)):
        b.fail(msg.SUBTILE_INDEX, c["index"].span, index=raw, grid=fmt_shape(grid),
               shape=fmt_shape(sizes))
    return sub_tile(b, x, tuple(int(i) for i in index), sizes, c.span)


@function("split", "x: Any, n: int, axis: int = 0",
          "a tuple of `n` equal tiles along `axis` (static)", "shape", returns="tuple[Any, ...]")
def _split(b: Builder, c: Call) -> FValue:
    x, dims = _static_tile(b, c["x"], "split")
    axis = norm_axis(b, c["axis"], len(dims), "the axis of split()")
    n = b.static_int(c["n"], "the number of parts of split()")
    dim = dims[axis]
    if n < 1 or dim % n or (dim // n) & (dim // n - 1):
        b.fail(msg.SPLIT_PARTS, c["n"].span, dim=dim, n=n)
    part = tuple(dim // n if i == axis else d for i, d in enumerate(dims))
    return TupleVal(tuple(
        sub_tile(b, x, tuple(k if i == axis else 0 for i in range(len(dims))), part, c.span)
        for k in range(n)))


def _interp(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    window = tuple(slice(i * s, (i + 1) * s) for i, s in zip(attrs["index"], attrs["shape"],
                                                             strict=True))
    return [np.array(args[0][window])]


def _lower(c: OpCtx) -> list[BcValue]:
    index = [c.b.constant(int(i), I32_TILE) for i in c.attrs["index"]]
    return [c.b.emit("extract", [c.out], c.args[0], index)]


ir_op("extract", _interp, _lower)
