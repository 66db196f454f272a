"""cutile dtypes and tile types -> Tile IR types. Tile IR integers carry no sign: signedness is
an attribute of the ops that care (div, rem, shr, compare, extend, int<->float)."""

from __future__ import annotations

from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import DType
from ..types import TileType, Type

SCALARS: dict[str, Scalar] = {
    "bool_": Scalar.I1,
    "i8": Scalar.I8, "u8": Scalar.I8,
    "i16": Scalar.I16, "u16": Scalar.I16,
    "i32": Scalar.I32, "u32": Scalar.I32,
    "i64": Scalar.I64, "u64": Scalar.I64,
    "f16": Scalar.F16, "bf16": Scalar.BF16, "tf32": Scalar.TF32, "f32": Scalar.F32,
    "f64": Scalar.F64, "f8e4m3": Scalar.F8E4M3FN, "f8e5m2": Scalar.F8E5M2,
}

I32_TILE = BcTile(Scalar.I32)
I1_TILE = BcTile(Scalar.I1)


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
