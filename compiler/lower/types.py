"""cutile dtypes and tile types -> Tile IR types. Tile IR integers carry no sign: signedness is
an attribute of the ops that care (div, rem, shr, compare, extend, int<->float)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import ALL_DTYPES, DType
from ..types import TileType, Type

if TYPE_CHECKING:
    from ..bytecode import Builder, Value

SCALARS: dict[str, Scalar] = {d.name: Scalar[d.tileir] for d in ALL_DTYPES}

I32_TILE = BcTile(Scalar.I32)
I1_TILE = BcTile(Scalar.I1)
I64_TILE = BcTile(Scalar.I64)


class LowerError(Exception):
    """A typed-IR construct the lowering does not handle (a cutile bug, reported as CT999)."""


def scalar(dtype: DType) -> Scalar:
    try:
        return SCALARS[dtype.name]
    except KeyError:
        raise LowerError(f"no Tile IR type for {dtype}") from None


def dims(shape: tuple[object, ...]) -> tuple[int, ...]:
    out = []
    for d in shape:
        if not isinstance(d, int):
            raise LowerError(f"tile dimension {d} is not known at compile time")
        out.append(d)
    return tuple(out)


def tile_type(t: Type) -> BcTile:
    if not isinstance(t, TileType):
        raise LowerError(f"expected a tile, got {t}")
    return BcTile(scalar(t.dtype), dims(t.shape))


def dtype_of(t: Type) -> DType:
    if not isinstance(t, TileType):
        raise LowerError(f"expected a tile, got {t}")
    return t.dtype


@dataclass
class OpCtx:
    """What an op's lowering (`IrOp.lower`) sees: the builder, its operands as bytecode values,
    the cutile types of operands and results, and the op's attributes."""

    b: Builder
    args: list[Value]
    types: list[Type]
    outs: list[Type]
    attrs: dict[str, Any]

    def dtype(self, i: int = 0) -> DType:
        return dtype_of(self.types[i])

    @property
    def out(self) -> BcTile:
        return tile_type(self.outs[0])

    @property
    def out_dtype(self) -> DType:
        return dtype_of(self.outs[0])
