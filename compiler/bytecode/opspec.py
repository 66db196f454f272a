"""The vocabulary of the declarative op table: how one op's fields are laid out on the wire.

An op is written as: opcode, result types, [flags varint], attributes, operands, [regions].
Every per-op difference is data here; `encoder.py` and `decoder.py` interpret it generically.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .version import V13_1, Version


class A(enum.Enum):
    """Attribute kinds and their inline encodings."""

    ENUM = "enum"          # varint of an IntEnum
    BOOL = "bool"          # u8
    INT = "int"            # varint
    STR = "str"            # varint string index
    TYPE = "type"          # varint type index
    I32S = "i32s"          # varint count + i32 LE each
    BOOLS = "bools"        # varint count + one byte each
    DENSE = "dense"        # varint constant-pool index
    TAGGED = "tagged"      # one tagged attribute
    TAGGED_LIST = "tlist"  # varint count + tagged attributes
    HINTS = "hints"        # an untagged optimization-hints dictionary
    UNIT = "unit"          # no bytes: only its flag bit


class O(enum.Enum):  # noqa: E742 (short name keeps the table readable)
    """Operand kinds."""

    ONE = "one"            # varint value index
    OPT = "opt"            # present iff its flag bit is set
    SIZED = "sized"        # varint count + indices (its own count)
    REST = "rest"          # the variadic tail of an op whose operand total is written once


@dataclass(frozen=True)
class Attr:
    name: str
    kind: A
    enum: type[enum.IntEnum] | None = None
    flag: int | None = None      # bit in the flags varint (optional and unit attributes)
    since: Version = V13_1       # written only from this version on
    default: object = None       # implied value when absent; older versions require it
    sized_like: str | None = None  # a bool list as long as this operand list (all false default)


@dataclass(frozen=True)
class Operand:
    name: str
    kind: O = O.ONE
    flag: int | None = None
    since: Version = V13_1


@dataclass(frozen=True)
class OpSpec:
    name: str
    opcode: int
    results: int | None = 1          # fixed count, or None for "any number"
    counted_results: bool = False    # result types are count-prefixed on the wire
    attrs: tuple[Attr, ...] = ()
    operands: tuple[Operand, ...] = ()
    counted_operands: bool = False   # one varint with the operand total precedes the operands
    regions: int = 0
    since: Version = V13_1

    def flag_fields(self, version: Version) -> list[Attr | Operand]:
        fields: list[Attr | Operand] = [*self.attrs, *self.operands]
        return [f for f in fields if f.flag is not None and f.since <= version]

    def has_flags(self, version: Version) -> bool:
        """The flags varint exists once any flag-carrying field exists at this version."""
        return bool(self.flag_fields(version))

    def fixed_operands(self) -> int:
        return sum(1 for o in self.operands if o.kind is O.ONE)

    def attr(self, name: str) -> Attr:
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no attribute {name!r}")
