"""Shape operations: reshape, broadcast_to, transpose, permute, expand_dims, cat."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..bytecode.types import TileType as BcTile
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, TupleVal
from ..ir import Value
from ..lower.types import OpCtx
from ..types import Dim, Shape, SymInt, TileType, Type, fmt_shape, is_static
from .defs import ir_op, numpy
from .registry import Call, function, method

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue


def _tile(b: Builder, arg: Arg, op: str) -> TileType:
    v = b.tile(arg, op)
    assert isinstance(v.type, TileType)
    return v.type


def norm_axis(b: Builder, arg: Arg, rank: int, what: str) -> int:
    axis = b.static_int(arg, what)
    if not -rank <= axis < rank:
        b.fail(msg.BAD_AXIS, arg.span, axis=axis, rank=rank)
    return axis % rank


@method("tile", "reshape", "shape: Any", "the same elements in a new shape (one dimension may "
        "be -1: inferred from the others, as NumPy's)", "shape")
def _reshape(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "reshape")
    t = _tile(b, c["self"], "reshape")
    shape = _inferred(b, c["shape"], t.shape, b.shape(c["shape"], "the shape of reshape()"))
    b.check_pow2(shape, c["shape"].span)
    if is_static(t.shape) and is_static(shape):
        na, nb = math.prod(t.shape), math.prod(shape)  # type: ignore[arg-type]
        if na != nb:
            b.fail(msg.RESHAPE_SIZE, c["shape"].span, a=fmt_shape(t.shape), na=na,
                   b=fmt_shape(shape), nb=nb)
    return b.emit1("reshape", [x], TileType(t.dtype, shape), c.span, shape=shape)


def _inferred(b: Builder, arg: Arg, old: Shape, shape: Shape) -> Shape:
    """`shape` with its -1 (at most one) replaced by what the element count leaves for it."""
    holes = [i for i, d in enumerate(shape) if d == -1]
    if not holes:
        return shape
    if len(holes) > 1:
        b.fail(msg.RESHAPE_HOLES, arg.span, n=len(holes), b=fmt_shape(shape))
    rest = tuple(d for d in shape if d != -1)
    dim: Dim
    if is_static(old) and is_static(rest):
        total, known = math.prod(old), math.prod(rest)  # type: ignore[arg-type]
        if known == 0 or total % known:
            b.fail(msg.RESHAPE_SIZE, arg.span, a=fmt_shape(old), na=total,
                   b=fmt_shape(shape), nb=f"a multiple of {known}")
        dim = total // known
    else:  # a Const not known yet: the launch's specialization gives the number
        dim = SymInt(f"({' * '.join(map(str, old)) or 1}) // ({' * '.join(map(str, rest)) or 1})")
    return (*shape[:holes[0]], dim, *shape[holes[0] + 1:])


@function("broadcast_to", "x: Any, shape: Any", "expand size-1 dimensions (NumPy rules)", "shape")
def _broadcast_to(b: Builder, c: Call) -> FValue:
    x = b.tile(c["x"], "broadcast_to")
    t = _tile(b, c["x"], "broadcast_to")
    shape = b.tile_shape(c["shape"], "the shape of broadcast_to()")
    if len(t.shape) > len(shape) or b.broadcast_shapes(t.shape, shape) not in (shape, None) or \
            b.broadcast_shapes(t.shape, shape) is None:
        b.fail(msg.BROADCAST_TO, c.span, a=fmt_shape(t.shape), b=fmt_shape(shape))
    return b.broadcast(x, shape, c.span)


@method("tile", "transpose", "", "swap the two axes of a rank-2 tile", "shape")
def _transpose(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "transpose")
    t = _tile(b, c["self"], "transpose")
    if t.rank != 2:
        b.fail(msg.RANK_NEEDED, c.span, what="transpose()", want=2, shape=fmt_shape(t.shape))
    return b.emit1("permute", [x], TileType(t.dtype, (t.shape[1], t.shape[0])), c.span,
                   axes=(1, 0))


@function("permute", "x: Any, axes: tuple[int, ...]", "reorder axes", "shape")
def _permute(b: Builder, c: Call) -> FValue:
    x = b.tile(c["x"], "permute")
    t = _tile(b, c["x"], "permute")
    axes = b.static_const(c["axes"], "the axes of permute()")
    if not isinstance(axes, tuple) or sorted(a % t.rank if isinstance(a, int) else -1
                                             for a in axes) != list(range(t.rank)):
        shown = fmt_shape(axes) if isinstance(axes, tuple) else str(axes)
        b.fail(msg.BAD_PERMUTATION, c["axes"].span, axes=shown, rank=t.rank)
    norm = tuple(a % t.rank for a in axes)
    shape = tuple(t.shape[a] for a in norm)
    return b.emit1("permute", [x], TileType(t.dtype, shape), c.span, axes=norm)


@function("expand_dims", "x: Any, axis: int", "insert a size-1 axis", "shape")
def _expand_dims(b: Builder, c: Call) -> FValue:
    x = b.tile(c["x"], "expand_dims")
    t = _tile(b, c["x"], "expand_dims")
    axis = norm_axis(b, c["axis"], t.rank + 1, "the axis of expand_dims()")
    shape = (*t.shape[:axis], 1, *t.shape[axis:])
    return b.emit1("reshape", [x], TileType(t.dtype, shape), c.span, shape=shape)


@function("cat", "tiles: tuple[Any, ...], axis: int = 0", "concatenate tiles along `axis` (two "
          "or more, joined pairwise into powers of two)", "shape")
def _cat(b: Builder, c: Call) -> FValue:
    seq = b.known(c["tiles"])
    if not isinstance(seq, TupleVal) or len(seq.items) < 2:
        got = f"a tuple of {len(seq.items)}" if isinstance(seq, TupleVal) else "this"
        b.fail(msg.BAD_OPERAND, c["tiles"].span, op="cat",
               what=f"{got} (pass a tuple of two or more tiles)")
    values = [b.tile(Arg(v, c["tiles"].span), "cat") for v in seq.items]
    first = values[0].type
    assert isinstance(first, TileType)
    axis = norm_axis(b, c["axis"], first.rank, "the axis of cat()")
    for v in values:
        assert isinstance(v.type, TileType)
        _check_cat_pair(b, c, first, v.type, axis)
    while len(values) > 2:  # Tile IR joins two tiles, each result a power of two
        values = _join_equal_pair(b, c, values, axis)
    return _cat2(b, c.span, values[0], values[1], axis)


def _extent(v: Value, axis: int) -> Dim:
    assert isinstance(v.type, TileType)
    return v.type.shape[axis]


def _join_equal_pair(b: Builder, c: Call, values: list[Value], axis: int) -> list[Value]:
    """The first two neighbours of equal extent joined (their sum a power of two again), or
    CT211 when no two are: every step of Tile IR's cat must be a power of two."""
    for i in range(len(values) - 1):
        if str(_extent(values[i], axis)) == str(_extent(values[i + 1], axis)):
            joined = _cat2(b, c.span, values[i], values[i + 1], axis)
            return [*values[:i], joined, *values[i + 2:]]
    extents = ", ".join(str(_extent(v, axis)) for v in values)
    b.fail(msg.BAD_OPERAND, c["tiles"].span, op="cat",
           what=f"tiles of extents {extents} along axis {axis} (Tile IR joins two tiles at a "
                "time into a power of two: neighbours of equal extent, e.g. 16, 16, 32)")


def _cat2(b: Builder, span: Span, x: Value, y: Value, axis: int) -> Value:
    t = x.type
    assert isinstance(t, TileType)
    da, db = _extent(x, axis), _extent(y, axis)
    dim: Dim = da + db if isinstance(da, int) and isinstance(db, int) else SymInt(f"{da}+{db}")
    shape = (*t.shape[:axis], dim, *t.shape[axis + 1:])
    b.check_pow2(shape, span)
    return b.emit1("cat", [x, y], TileType(t.dtype, shape), span, axis=axis)


def _check_cat_pair(b: Builder, c: Call, first: TileType, t: TileType, axis: int) -> None:
    """One more tile of a cat: the first one's dtype and rank, its extents off the axis."""
    if first.dtype != t.dtype:
        b.fail(msg.DTYPE_MIX, c["tiles"].span, op="concatenate", a=first.dtype, b=t.dtype)
    if first.rank != t.rank or any(
            i != axis and x != y for i, (x, y) in enumerate(zip(first.shape, t.shape,
                                                                 strict=True))):
        b.fail(msg.CAT_SHAPES, c["tiles"].span, a=fmt_shape(first.shape),
               b=fmt_shape(t.shape), axis=axis)


# -- interpreter and lowering of the IR ops these rules emit ------------------------------------
def _reshape_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().reshape(args[0], attrs["shape"]).copy()]


def _broadcast_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().broadcast_to(args[0], attrs["shape"]).copy()]


def _permute_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().transpose(args[0], attrs["axes"]).copy()]


def _cat_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().concatenate(args, axis=attrs["axis"])]


def _same(name: str) -> Callable[[OpCtx], list[BcValue]]:
    return lambda c: [c.b.emit(name, [c.out], c.args[0])]


def _permute_lower(c: OpCtx) -> list[BcValue]:
    return [c.b.emit("permute", [c.out], c.args[0],
                     permutation=tuple(int(a) for a in c.attrs["axes"]))]


def _cat_lower(c: OpCtx) -> list[BcValue]:
    """Tile IR's cat joins two tiles; chain it (intermediate widths are sums of powers of 2, so
    only the final result must be a power of two, which the frontend checks)."""
    out = c.out
    acc = c.args[0]
    axis = c.attrs["axis"]
    for i, nxt in enumerate(c.args[1:], start=2):
        at, nt = acc.type, nxt.type
        assert isinstance(at, BcTile) and isinstance(nt, BcTile)
        shape = list(at.shape)
        shape[axis] += nt.shape[axis]
        ty = out if i == len(c.args) else BcTile(out.elem, tuple(shape))
        acc = c.b.emit("cat", [ty], acc, nxt, dim=axis)
    return [acc]


ir_op("reshape", _reshape_np, _same("reshape"))
ir_op("broadcast", _broadcast_np, _same("broadcast"))
ir_op("permute", _permute_np, _permute_lower)
ir_op("cat", _cat_np, _cat_lower)
