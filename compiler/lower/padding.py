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


def splat(b: Builder, scalar: Value, shape: tuple[int, ...]) -> Value:
    """A rank-0 tile (of any element type, pointers included) broadcast to `shape`."""
    t = scalar.type
    assert isinstance(t, BcTile) and t.shape == ()
    if not shape:
        return scalar
    ones = b.emit("reshape", [BcTile(t.elem, (1,) * len(shape))], scalar)
    if all(n == 1 for n in shape):
        return ones
    return b.emit("broadcast", [BcTile(t.elem, shape)], ones)


def run_from(b: Builder, start: Value, n: int) -> Value:
    """start, start + 1, ..., start + n - 1: a rank-1 tile of the rank-0 `start`'s type."""
    t = start.type
    assert isinstance(t, BcTile)
    row = BcTile(t.elem, (n,))
    return b.emit("addi", [row], b.emit("iota", [row]), splat(b, start, (n,)))


def along(b: Builder, x: Value, axis: int, shape: tuple[int, ...], broadcast: bool = True
          ) -> Value:
    """A rank-1 tile laid along `axis` of `shape` (size 1 on the other axes), and broadcast
    over them unless told not to."""
    t = x.type
    assert isinstance(t, BcTile)
    laid = tuple(n if i == axis else 1 for i, n in enumerate(shape))
    if laid != t.shape:
        x = b.emit("reshape", [BcTile(t.elem, laid)], x)
    if broadcast and laid != shape:
        x = b.emit("broadcast", [BcTile(t.elem, shape)], x)
    return x


def pad_outside(b: Builder, tile: Value, index: list[Value], extents: list[Value],
                value: float | int | bool, inside: Value | None = None) -> Value:
    """`tile` with `value` wherever its elements lie outside the tensor's extents. `inside`:
    whether the tile index was within the tensor's tiles at all (a rank-0 flag; `index` then
    holds it clamped), else the whole tile is padding."""
    out = tile.type
    assert isinstance(out, BcTile)
    mask = None if inside is None else splat(b, inside, out.shape)
    for axis, n in enumerate(out.shape):
        start = b.emit("muli", [I32_TILE], index[axis], b.constant(n, I32_TILE))
        within = b.emit("cmpi", [BcTile(Scalar.I1, (n,))], run_from(b, start, n),
                        splat(b, extents[axis], (n,)), comparison_predicate=CmpPredicate.LT,
                        signedness=Signedness.SIGNED)
        within = along(b, within, axis, out.shape)
        mask = within if mask is None else b.emit("andi", [within.type], mask, within)
    assert mask is not None
    return b.emit("select", [out], mask, tile, b.constant(value, out))
