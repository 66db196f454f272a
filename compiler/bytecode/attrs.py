"""Attribute values: the enums ops carry inline, tagged attributes, dense constants, hints."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import floats
from .types import Scalar, Type
from .version import Version
from .wire import Writer


class RoundingMode(enum.IntEnum):
    NEAREST_EVEN = 0
    ZERO = 1
    NEG_INF = 2
    POS_INF = 3
    APPROX = 4
    FULL = 5
    NEAREST_INT_TO_ZERO = 6
    NEAREST_AWAY = 7


class CmpPredicate(enum.IntEnum):
    EQ = 0
    NE = 1
    LT = 2
    LE = 3
    GT = 4
    GE = 5


class CmpOrdering(enum.IntEnum):
    UNORDERED = 0
    ORDERED = 1


class Signedness(enum.IntEnum):
    UNSIGNED = 0
    SIGNED = 1


class Overflow(enum.IntEnum):
    NONE = 0
    NSW = 1
    NUW = 2
    NW = 3


class MemoryOrdering(enum.IntEnum):
    WEAK = 0
    RELAXED = 1
    ACQUIRE = 2
    RELEASE = 3
    ACQ_REL = 4


class MemoryScope(enum.IntEnum):
    TL_BLK = 0
    DEVICE = 1
    SYS = 2


class AtomicMode(enum.IntEnum):
    AND = 0
    OR = 1
    XOR = 2
    ADD = 3
    ADDF = 4
    MAX = 5
    MIN = 6
    UMAX = 7
    UMIN = 8
    XCHG = 9


class AttrTag(enum.IntEnum):
    INTEGER = 1
    FLOAT = 2
    BOOL = 3
    TYPE = 4
    STRING = 5
    ARRAY = 6
    DENSE = 7
    DIV_BY = 8
    SAME_ELEMENTS = 9
    DICT = 10
    HINTS = 11
    BOUNDED = 12


@dataclass(frozen=True)
class Dense:
    """A dense elements constant: the raw little-endian buffer (one element when splat)."""

    data: bytes

    @staticmethod
    def splat(value: float | int | bool, elem: Scalar) -> Dense:
        return Dense(element_bytes(value, elem))

    @staticmethod
    def of(values: Sequence[float | int | bool], elem: Scalar) -> Dense:
        if elem is Scalar.I1:
            # Non-splat i1 data is bit-packed, least significant bit first.
            packed = bytearray((len(values) + 7) // 8)
            for i, v in enumerate(values):
                if v:
                    packed[i // 8] |= 1 << (i % 8)
            return Dense(bytes(packed))
        return Dense(b"".join(element_bytes(v, elem) for v in values))


def element_bytes(value: float | int | bool, elem: Scalar) -> bytes:
    """One element of a dense buffer: ints two's complement LE, floats by bit pattern."""
    if elem is Scalar.I1:
        return b"\xff" if value else b"\x00"  # a splat true is all ones
    width = max(1, (elem.bits + 7) // 8)
    if elem.is_float:
        return floats.to_bits(float(value), elem).to_bytes(width, "little")
    v = int(value) & ((1 << (8 * width)) - 1)
    return v.to_bytes(width, "little")


# ---- tagged (self-describing) attributes ----

@dataclass(frozen=True)
class IntegerAttr:
    type: Scalar
    value: int


@dataclass(frozen=True)
class FloatAttr:
    type: Scalar
    value: float


@dataclass(frozen=True)
class BoolAttr:
    value: bool


@dataclass(frozen=True)
class TypeAttr:
    type: Type


@dataclass(frozen=True)
class StringAttr:
    value: str


@dataclass(frozen=True)
class ArrayAttr:
    items: tuple[Tagged, ...]


@dataclass(frozen=True)
class DenseAttr:
    type: Type
    value: Dense


@dataclass(frozen=True)
class DivBy:
    """`assume div_by<divisor[, every e along a]>`: the value (or every e-th element) divides."""

    divisor: int
    every: int | None = None
    along: int | None = None


@dataclass(frozen=True)
class SameElements:
    values: tuple[int, ...]


@dataclass(frozen=True)
class Bounded:
    lb: int | None = None
    ub: int | None = None


@dataclass(frozen=True)
class DictAttr:
    items: tuple[tuple[str, Tagged], ...] = ()


@dataclass(frozen=True)
class Hints:
    """Optimization hints per target: (arch name such as "sm_90" or "default", its dictionary).
    `since`: the bytecode version that introduced a key, for keys newer than 13.1; the encoder
    leaves a key out of older bytecode (not part of the value: a decoded module has none)."""

    by_arch: tuple[tuple[str, DictAttr], ...] = ()
    since: tuple[tuple[str, Version], ...] = field(default=(), compare=False)

    @staticmethod
    def entry(arch: str = "default", *, since: tuple[tuple[str, Version], ...] = (),
              **values: int) -> Hints:
        """Kernel-level hints, i32 each (which keys exist: compiler/kernel_options.py)."""
        items = tuple((k, IntegerAttr(Scalar.I32, v)) for k, v in values.items())
        return Hints(((arch, DictAttr(items)),), since)

    @staticmethod
    def memory(arch: str = "default", allow_tma: bool | None = None,
               latency: int | None = None) -> Hints:
        """Load/store hints: `allow_tma` and `latency` (1-10)."""
        items: list[tuple[str, Tagged]] = []
        if allow_tma is not None:
            items.append(("allow_tma", BoolAttr(allow_tma)))
        if latency is not None:
            items.append(("latency", IntegerAttr(Scalar.I32, latency)))
        return Hints(((arch, DictAttr(tuple(items))),))


Tagged = (IntegerAttr | FloatAttr | BoolAttr | TypeAttr | StringAttr | ArrayAttr | DenseAttr
          | DivBy | SameElements | Bounded | DictAttr | Hints)


def write_ap_int(w: Writer, bits: int, width: int) -> None:
    """APInt payload of tagged Float attributes: one raw byte up to 8 bits, else a zigzag varint."""
    if width <= 8:
        w.u8(bits)
    else:
        w.svarint(bits)
