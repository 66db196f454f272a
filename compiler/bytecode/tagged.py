"""Tagged ("self-contained") attributes: varint tag, then a payload per kind. Both directions."""

from __future__ import annotations

from . import floats
from .attrs import (
    ArrayAttr,
    AttrTag,
    BoolAttr,
    Bounded,
    DenseAttr,
    DictAttr,
    DivBy,
    FloatAttr,
    Hints,
    IntegerAttr,
    SameElements,
    StringAttr,
    Tagged,
    TypeAttr,
)
from .tables import DecodedTables, ModuleTables
from .types import Scalar
from .wire import BytecodeFormatError, Reader, Writer


def write_tagged(w: Writer, attr: Tagged, t: ModuleTables) -> None:
    if isinstance(attr, IntegerAttr):
        w.varint(AttrTag.INTEGER)
        w.varint(t.type(attr.type))
        w.varint(attr.value & ((1 << attr.type.bits) - 1))
    elif isinstance(attr, FloatAttr):
        w.varint(AttrTag.FLOAT)
        w.varint(t.type(attr.type))
        bits = floats.to_bits(attr.value, attr.type)
        if attr.type.bits <= 8:
            w.u8(bits)
        else:
            w.svarint(bits)
    elif isinstance(attr, BoolAttr):
        w.varint(AttrTag.BOOL)
        w.u8(1 if attr.value else 0)
    elif isinstance(attr, TypeAttr):
        w.varint(AttrTag.TYPE)
        w.varint(t.type(attr.type))
    elif isinstance(attr, StringAttr):
        w.varint(AttrTag.STRING)
        w.varint(t.string(attr.value))
    elif isinstance(attr, ArrayAttr):
        w.varint(AttrTag.ARRAY)
        write_tagged_list(w, attr.items, t)
    elif isinstance(attr, DenseAttr):
        w.varint(AttrTag.DENSE)
        w.varint(t.type(attr.type))
        w.varint(t.constant(attr.value))
    elif isinstance(attr, DivBy):
        w.varint(AttrTag.DIV_BY)
        w.varint(attr.divisor)
        w.u8((attr.every is not None) | (attr.along is not None) << 1)
        if attr.every is not None:
            w.svarint(attr.every)
        if attr.along is not None:
            w.svarint(attr.along)
    elif isinstance(attr, SameElements):
        w.varint(AttrTag.SAME_ELEMENTS)
        w.int_list(attr.values, 8)
    elif isinstance(attr, Bounded):
        w.varint(AttrTag.BOUNDED)
        w.u8((attr.lb is not None) | (attr.ub is not None) << 1)
        if attr.lb is not None:
            w.svarint(attr.lb)
        if attr.ub is not None:
            w.svarint(attr.ub)
    elif isinstance(attr, DictAttr):
        w.varint(AttrTag.DICT)
        write_dict_body(w, attr.items, t)
    else:
        w.varint(AttrTag.HINTS)
        write_hints_body(w, attr, t)


def write_tagged_list(w: Writer, items: tuple[Tagged, ...], t: ModuleTables) -> None:
    w.varint(len(items))
    for item in items:
        write_tagged(w, item, t)


def write_dict_body(w: Writer, items: tuple[tuple[str, Tagged], ...], t: ModuleTables) -> None:
    w.varint(len(items))
    for key, value in items:
        w.varint(t.string(key))
        write_tagged(w, value, t)


def write_hints_body(w: Writer, hints: Hints, t: ModuleTables) -> None:
    write_dict_body(w, hints.by_arch, t)


def read_tagged(r: Reader, t: DecodedTables) -> Tagged:
    tag = r.varint()
    if tag == AttrTag.INTEGER:
        ty = _scalar(t, r.varint())
        raw = r.varint()
        if ty.bits > 1 and raw >= 1 << (ty.bits - 1):
            raw -= 1 << ty.bits
        return IntegerAttr(ty, raw)
    if tag == AttrTag.FLOAT:
        ty = _scalar(t, r.varint())
        bits = r.u8() if ty.bits <= 8 else r.svarint()
        return FloatAttr(ty, floats.from_bits(bits, ty))
    if tag == AttrTag.BOOL:
        return BoolAttr(r.u8() != 0)
    if tag == AttrTag.TYPE:
        return TypeAttr(t.type(r.varint()))
    if tag == AttrTag.STRING:
        return StringAttr(t.string(r.varint()))
    if tag == AttrTag.ARRAY:
        return ArrayAttr(read_tagged_list(r, t))
    if tag == AttrTag.DENSE:
        return DenseAttr(t.type(r.varint()), t.constant(r.varint()))
    if tag == AttrTag.DIV_BY:
        divisor = r.varint()
        flags = r.u8()
        every = r.svarint() if flags & 1 else None
        along = r.svarint() if flags & 2 else None
        return DivBy(divisor, every, along)
    if tag == AttrTag.SAME_ELEMENTS:
        return SameElements(tuple(r.int_list(8)))
    if tag == AttrTag.BOUNDED:
        flags = r.u8()
        lb = r.svarint() if flags & 1 else None
        ub = r.svarint() if flags & 2 else None
        return Bounded(lb, ub)
    if tag == AttrTag.DICT:
        return DictAttr(read_dict_body(r, t))
    if tag == AttrTag.HINTS:
        return read_hints_body(r, t)
    raise BytecodeFormatError(f"unknown attribute tag {tag} at offset {r.pos}")


def read_tagged_list(r: Reader, t: DecodedTables) -> tuple[Tagged, ...]:
    return tuple(read_tagged(r, t) for _ in range(r.varint()))


def read_dict_body(r: Reader, t: DecodedTables) -> tuple[tuple[str, Tagged], ...]:
    return tuple((t.string(r.varint()), read_tagged(r, t)) for _ in range(r.varint()))


def read_hints_body(r: Reader, t: DecodedTables) -> Hints:
    items = []
    for key, value in read_dict_body(r, t):
        if not isinstance(value, DictAttr):
            raise BytecodeFormatError(f"hints for {key} are not a dictionary")
        items.append((key, value))
    return Hints(tuple(items))


def _scalar(t: DecodedTables, idx: int) -> Scalar:
    ty = t.type(idx)
    if not isinstance(ty, Scalar):
        raise BytecodeFormatError(f"scalar attribute of type {ty}")
    return ty
