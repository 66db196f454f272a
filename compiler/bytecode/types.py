"""The Tile IR type system as values, with their type-table encodings (both directions).

Types are frozen dataclasses so they can key dicts; the type table interns their encoded bytes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from .version import V13_1, V13_2, V13_3, V13_4, Version
from .wire import BytecodeFormatError, Reader, Writer

DYNAMIC = None  # a `?` extent or stride in a tensor_view
_INT64_MIN = -(2**63)


class Scalar(enum.Enum):
    """Element types; the value is (type tag, bit width, first version, printed name)."""

    I1 = (0, 1, V13_1, "i1")
    I8 = (1, 8, V13_1, "i8")
    I16 = (2, 16, V13_1, "i16")
    I32 = (3, 32, V13_1, "i32")
    I64 = (4, 64, V13_1, "i64")
    F16 = (5, 16, V13_1, "f16")
    BF16 = (6, 16, V13_1, "bf16")
    F32 = (7, 32, V13_1, "f32")
    TF32 = (8, 19, V13_1, "tf32")
    F64 = (9, 64, V13_1, "f64")
    F8E4M3FN = (10, 8, V13_1, "f8E4M3FN")
    F8E5M2 = (11, 8, V13_1, "f8E5M2")
    TOKEN = (17, 0, V13_1, "token")
    F8E8M0FNU = (18, 8, V13_2, "f8E8M0FNU")
    F4E2M1FN = (19, 4, V13_3, "f4E2M1FN")
    I4 = (22, 4, V13_3, "i4")
    F8E5M3FNU = (130, 8, V13_4, "f8E5M3FNU")

    @property
    def tag(self) -> int:
        return int(self.value[0])

    @property
    def bits(self) -> int:
        return int(self.value[1])

    @property
    def since(self) -> Version:
        v: Version = self.value[2]
        return v

    @property
    def is_float(self) -> bool:
        return self.name.startswith(("F", "BF", "TF"))

    @property
    def is_int(self) -> bool:
        return self.name.startswith("I")

    def __str__(self) -> str:
        return str(self.value[3])


class Padding(enum.IntEnum):
    """The value a partition view reads outside its tensor."""

    ZERO = 0
    NEG_ZERO = 1
    NAN = 2
    POS_INF = 3
    NEG_INF = 4


@dataclass(frozen=True)
class PtrType:
    pointee: Scalar

    def __str__(self) -> str:
        return f"ptr<{self.pointee}>"


@dataclass(frozen=True)
class TileType:
    elem: Scalar | PtrType
    shape: tuple[int, ...] = ()

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tile<{dims}{self.elem}>"


@dataclass(frozen=True)
class TensorViewType:
    elem: Scalar
    shape: tuple[int | None, ...]
    strides: tuple[int | None, ...]

    def __str__(self) -> str:
        dims = "".join(f"{'?' if d is None else d}x" for d in self.shape)
        st = ",".join("?" if s is None else str(s) for s in self.strides)
        return f"tensor_view<{dims}{self.elem}, strides=[{st}]>"


@dataclass(frozen=True)
class PartitionViewType:
    tile_shape: tuple[int, ...]
    view: TensorViewType
    dim_map: tuple[int, ...]
    padding: Padding | None = None

    def __str__(self) -> str:
        tile = "x".join(map(str, self.tile_shape))
        pad = "" if self.padding is None else f", padding={self.padding.name.lower()}"
        dm = "" if self.dim_map == tuple(range(len(self.tile_shape))) else \
            f", dim_map=[{','.join(map(str, self.dim_map))}]"
        return f"partition_view<tile=({tile}){pad}{dm}, {self.view}>"


@dataclass(frozen=True)
class FunctionType:
    inputs: tuple[Type, ...]
    outputs: tuple[Type, ...] = ()

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.inputs))}) -> ({', '.join(map(str, self.outputs))})"


Type = Scalar | PtrType | TileType | TensorViewType | PartitionViewType | FunctionType
TOKEN = Scalar.TOKEN


def tile(elem: Scalar | PtrType, *shape: int) -> TileType:
    return TileType(elem, tuple(shape))


_PTR, _TILE, _TENSOR_VIEW, _PARTITION_VIEW, _FUNCTION = 12, 13, 14, 15, 16
_SCALARS = {s.tag: s for s in Scalar}


def encode_type(ty: Type, version: Version, intern: Callable[[Type], int]) -> bytes:
    """The type-table entry of `ty`; `intern` gives the index of a dependency (added first)."""
    w = Writer()
    if isinstance(ty, Scalar):
        if ty.since > version:
            raise ValueError(f"type {ty} needs bytecode {ty.since}, writing {version}")
        w.varint(ty.tag)
    elif isinstance(ty, PtrType):
        w.varint(_PTR)
        if version >= V13_4:
            w.varint(0)  # optional-field flags: no ptrAttr
        w.varint(intern(ty.pointee))
    elif isinstance(ty, TileType):
        w.varint(_TILE)
        w.varint(intern(ty.elem))
        w.int_list(ty.shape, 8)
    elif isinstance(ty, TensorViewType):
        w.varint(_TENSOR_VIEW)
        if version >= V13_4:
            w.varint(0)
        w.varint(intern(ty.elem))
        w.int_list([_INT64_MIN if d is None else d for d in ty.shape], 8)
        w.int_list([_INT64_MIN if s is None else s for s in ty.strides], 8)
    elif isinstance(ty, PartitionViewType):
        w.varint(_PARTITION_VIEW)
        if version >= V13_3:
            w.varint(0 if ty.padding is None else 1)
            w.int_list(ty.tile_shape, 4)
            w.varint(intern(ty.view))
            w.int_list(ty.dim_map, 4)
            if ty.padding is not None:
                w.u8(ty.padding)
        else:
            w.int_list(ty.tile_shape, 4)
            w.varint(intern(ty.view))
            w.int_list(ty.dim_map, 4)
            w.varint(0 if ty.padding is None else 1)
            if ty.padding is not None:
                w.u8(ty.padding)
    else:
        w.varint(_FUNCTION)
        w.varint_list([intern(t) for t in ty.inputs])
        w.varint_list([intern(t) for t in ty.outputs])
    return bytes(w.buf)


def decode_type(data: bytes, version: Version, lookup: Callable[[int], Type]) -> Type:
    """Inverse of `encode_type`; `lookup` resolves an already-decoded type index."""
    r = Reader(data)
    tag = r.varint()
    ty: Type
    if tag in _SCALARS:
        ty = _SCALARS[tag]
    elif tag == _PTR:
        flags = r.varint() if version >= V13_4 else 0
        pointee = lookup(r.varint())
        if flags & 1:
            r.u8()  # ptrAttr: only the default exists, and we do not model it
        if not isinstance(pointee, Scalar):
            raise BytecodeFormatError(f"pointer to non-scalar {pointee}")
        ty = PtrType(pointee)
    elif tag == _TILE:
        elem = lookup(r.varint())
        if not isinstance(elem, Scalar | PtrType):
            raise BytecodeFormatError(f"tile of {elem}")
        ty = TileType(elem, tuple(r.int_list(8)))
    elif tag == _TENSOR_VIEW:
        flags = r.varint() if version >= V13_4 else 0
        elem = lookup(r.varint())
        shape = tuple(None if d == _INT64_MIN else d for d in r.int_list(8))
        strides = tuple(None if d == _INT64_MIN else d for d in r.int_list(8))
        if flags & 1:
            r.u8()
        if not isinstance(elem, Scalar):
            raise BytecodeFormatError(f"tensor_view of {elem}")
        ty = TensorViewType(elem, shape, strides)
    elif tag == _PARTITION_VIEW:
        if version >= V13_3:
            has_pad = r.varint() & 1
            tile_shape = tuple(r.int_list(4))
            view = lookup(r.varint())
            dim_map = tuple(r.int_list(4))
        else:
            tile_shape = tuple(r.int_list(4))
            view = lookup(r.varint())
            dim_map = tuple(r.int_list(4))
            has_pad = r.varint()
        padding = Padding(r.u8()) if has_pad else None
        if not isinstance(view, TensorViewType):
            raise BytecodeFormatError(f"partition_view over {view}")
        ty = PartitionViewType(tile_shape, view, dim_map, padding)
    elif tag == _FUNCTION:
        ins = tuple(lookup(i) for i in r.varint_list())
        outs = tuple(lookup(i) for i in r.varint_list())
        ty = FunctionType(ins, outs)
    else:
        raise BytecodeFormatError(f"unknown type tag {tag}")
    if not r.at_end():
        raise BytecodeFormatError(f"trailing bytes in type entry {data.hex()}")
    return ty
