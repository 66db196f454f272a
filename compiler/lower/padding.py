"""Lowering `padding=`: Tile IR partition views pad with zero, -0.0, NaN or an infinity; any other
value (`padding=1.5`, `padding=-1` on ints) is a zero-padded load followed by a select on the
in-bounds mask, computed from the tile index and the tensor's extents."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..bytecode.attrs import CmpPredicate, Signedness
from ..bytecode.types import Padding, Scalar
from ..bytecode.types import TileType as BcTile
from .types import I32_TILE

if TYPE_CHECKING:
    from ..bytecode import Builder, Value


def view_padding(value: object) -> Padding | None:
    """The view padding that reads `value` outside the tensor, or None if no view mode does."""
    if value is None:
        return Padding.ZERO
    if not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and math.isnan(value):
        return Padding.NAN
    if value == 0:
        return Padding.NEG_ZERO if math.copysign(1.0, value) < 0 else Padding.ZERO
    if isinstance(value, float) and math.isinf(value):
        return Padding.POS_INF if value > 0 else Padding.NEG_INF
    return None


def splat_scalar(b: Builder, scalar: Value, to: BcTile) -> Value:
    """A rank-0 tile broadcast to `to` (reshape to 1x...x1, then broadcast)."""
    ones = BcTile(to.elem, (1,) * len(to.shape))
    return b.emit("broadcast", [to], b.emit("reshape", [ones], scalar))


def pad_outside(b: Builder, tile: Value, index: list[Value], extents: list[Value],
                value: float | int | bool) -> Value:
    """`tile` with `value` wherever its elements lie outside the tensor's extents."""
    out = tile.type
    assert isinstance(out, BcTile)
    rank = len(out.shape)
    mask: Value | None = None
    for axis, n in enumerate(out.shape):
        row = BcTile(Scalar.I32, (n,))
        start = b.emit("muli", [I32_TILE], index[axis], b.constant(n, I32_TILE))
        pos = b.emit("addi", [row], b.emit("iota", [row]), splat_scalar(b, start, row))
        inside = b.emit("cmpi", [BcTile(Scalar.I1, (n,))], pos, splat_scalar(b, extents[axis], row),
                        comparison_predicate=CmpPredicate.LT, signedness=Signedness.SIGNED)
        along = tuple(n if i == axis else 1 for i in range(rank))
        if along != (n,):  # (n,) -> (1, n): also when the tile is (1, n) itself
            inside = b.emit("reshape", [BcTile(Scalar.I1, along)], inside)
        if along != out.shape:
            inside = b.emit("broadcast", [BcTile(Scalar.I1, out.shape)], inside)
        mask = inside if mask is None else b.emit("andi", [inside.type], mask, inside)
    assert mask is not None
    return b.emit("select", [out], mask, tile, b.constant(value, out))
