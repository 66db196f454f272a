"""Module -> bytecode bytes, driven by the op table.

SSA numbering: entry parameters are 0..n-1, then each op result takes the next index in program
order. A region's block arguments and inner results continue the count while the block is
written, and the count returns to its value before the block when the block ends. A region op's
own results are numbered after its regions.
"""

from __future__ import annotations

import enum

from .attrs import Dense, DictAttr, Hints, Tagged
from .ir import Block, Function, Module, Op, Value
from .opspec import A, O
from .optable import TERMINATORS
from .tables import ModuleTables
from .tagged import write_hints_body, write_tagged, write_tagged_list
from .types import FunctionType
from .version import DEFAULT, SUPPORTED, V13_1, Version
from .wire import Writer

MAGIC = b"\x7fTileIR\x00"


class Section(enum.IntEnum):
    END = 0
    STRING = 1
    FUNC = 2
    DEBUG = 3
    CONSTANT = 4
    TYPE = 5
    GLOBAL = 6
    PRODUCER = 7


FN_ENTRY = 0x02
FN_HINTS = 0x04


class EncodeError(ValueError):
    """The module cannot be written at this version, or is malformed (a cutile bug)."""


def encode(module: Module, version: Version = DEFAULT) -> bytes:
    if version not in SUPPORTED:
        raise EncodeError(f"bytecode {version} is not supported (we write "
                          f"{', '.join(map(str, SUPPORTED))})")
    tables = ModuleTables(version)
    funcs = Writer()
    funcs.varint(len(module.functions))
    for fn in module.functions:
        _write_function(funcs, fn, tables)

    out = Writer()
    out.raw(MAGIC)
    out.u8(version.major)
    out.u8(version.minor)
    out.int_le(0, 2)  # tag: no preview features
    _section(out, Section.FUNC, 8, bytes(funcs.buf))
    if tables.constants.entries:
        _section(out, Section.CONSTANT, 8, tables.constants.write(8))
    # Types last but one: function bodies and constants may have interned new types.
    _section(out, Section.TYPE, 4, tables.types.write(4))
    _section(out, Section.STRING, 4, tables.strings.write(4))
    out.u8(Section.END)
    return bytes(out.buf)


def _section(out: Writer, sid: Section, alignment: int, payload: bytes) -> None:
    out.u8(sid | (0x80 if alignment > 1 else 0))
    out.varint(len(payload))
    if alignment > 1:
        out.varint(alignment)
        out.pad_to(alignment)
    out.raw(payload)


def _write_function(w: Writer, fn: Function, tables: ModuleTables) -> None:
    sig = FunctionType(tuple(p.type for p in fn.params), fn.results)
    hints = _hints_at(fn.hints, tables.version) if fn.hints is not None else None
    w.varint(tables.string(fn.name))
    w.varint(tables.type(sig))
    w.u8((FN_ENTRY if fn.entry else 0) | (FN_HINTS if hints is not None else 0))
    w.varint(0)  # debug location index: none
    if hints is not None:
        write_tagged(w, hints, tables)
    body = _BodyWriter(tables)
    for p in fn.params:
        body.define(p)
    if not fn.body.ops or fn.body.ops[-1].name != "return":
        raise EncodeError(f"function {fn.name} must end with 'return'")
    ops = Writer()
    for op in fn.body.ops:
        body.op(ops, op)
    w.varint(len(ops))
    w.raw(ops.buf)


def _hints_at(hints: Hints, version: Version) -> Hints | None:
    """Entry hints without the keys this version does not know (`Hints.since`: they only tune
    code generation, so an older tileiras compiles without them); None when nothing is left."""
    since = dict(hints.since)
    by_arch = []
    for arch, d in hints.by_arch:
        items = tuple((k, v) for k, v in d.items if since.get(k, V13_1) <= version)
        if items:
            by_arch.append((arch, DictAttr(items)))
    return Hints(tuple(by_arch)) if by_arch else None


class _BodyWriter:
    def __init__(self, tables: ModuleTables) -> None:
        self.t = tables
        self.v = tables.version
        self.ids: dict[Value, int] = {}
        self.scope: list[Value] = []

    def define(self, value: Value) -> None:
        if value in self.ids:
            raise EncodeError(f"{value} is defined twice")
        self.ids[value] = len(self.scope)
        self.scope.append(value)

    def use(self, value: Value, op: Op) -> int:
        idx = self.ids.get(value)
        if idx is None:
            raise EncodeError(f"{op.name} uses {value}, which is not visible there")
        return idx

    def op(self, w: Writer, op: Op) -> None:
        spec = op.spec
        if spec.since > self.v:
            raise EncodeError(f"op {spec.name} needs bytecode {spec.since}, writing {self.v}")
        w.varint(spec.opcode)
        if spec.counted_results:
            w.varint(len(op.results))
        for r in op.results:
            w.varint(self.t.type(r.type))
        if spec.has_flags(self.v):
            w.varint(self._flags(op))
        for a in spec.attrs:
            value = op.attrs.get(a.name)
            if a.since > self.v:
                if value not in (None, False, a.default) and not (
                        a.kind is A.BOOLS and isinstance(value, tuple) and not any(value)):
                    raise EncodeError(f"{spec.name}.{a.name}={value!r} needs bytecode {a.since}")
                continue
            if a.kind is A.UNIT or (a.flag is not None and value is None):
                continue
            self._attr(w, a.kind, value)
        if spec.counted_operands:
            w.varint(len(op.flat_operands()))
        for field, group in zip(spec.operands, op.operands, strict=True):
            if field.kind is O.ONE:
                assert isinstance(group, Value)
                w.varint(self.use(group, op))
            elif field.kind is O.OPT:
                if group is not None:
                    if field.since > self.v:
                        raise EncodeError(f"{spec.name} operand {field.name} needs {field.since}")
                    assert isinstance(group, Value)
                    w.varint(self.use(group, op))
            else:
                assert isinstance(group, list)
                if field.kind is O.SIZED:
                    w.varint(len(group))
                for v in group:
                    w.varint(self.use(v, op))
        if spec.regions:
            w.varint(len(op.regions))
            for block in op.regions:
                self.block(w, block, op)
        for r in op.results:
            self.define(r)

    def _flags(self, op: Op) -> int:
        bits = 0
        for a in op.spec.attrs:
            if a.flag is not None and a.since <= self.v and op.attrs.get(a.name) not in (
                    None, False):
                bits |= 1 << a.flag
        for field, group in zip(op.spec.operands, op.operands, strict=True):
            if field.flag is not None and field.since <= self.v and group is not None:
                bits |= 1 << field.flag
        return bits

    def _attr(self, w: Writer, kind: A, value: object) -> None:
        if kind is A.ENUM:
            assert isinstance(value, enum.IntEnum)
            w.varint(int(value))
        elif kind is A.BOOL:
            w.u8(1 if value else 0)
        elif kind is A.INT:
            assert isinstance(value, int)
            w.varint(value)
        elif kind is A.STR:
            assert isinstance(value, str)
            w.varint(self.t.string(value))
        elif kind is A.TYPE:
            w.varint(self.t.type(value))  # type: ignore[arg-type]
        elif kind is A.I32S:
            assert isinstance(value, tuple)
            w.int_list(value, 4)
        elif kind is A.BOOLS:
            assert isinstance(value, tuple)
            w.bool_list(value)
        elif kind is A.DENSE:
            assert isinstance(value, Dense)
            w.varint(self.t.constant(value))
        elif kind is A.TAGGED:
            write_tagged(w, value, self.t)  # type: ignore[arg-type]
        elif kind is A.TAGGED_LIST:
            items: tuple[Tagged, ...] = value  # type: ignore[assignment]
            write_tagged_list(w, items, self.t)
        elif kind is A.HINTS:
            assert isinstance(value, Hints)
            write_hints_body(w, value, self.t)
        else:
            raise EncodeError(f"attribute kind {kind} has no inline encoding")

    def block(self, w: Writer, block: Block, owner: Op) -> None:
        if not block.ops or block.ops[-1].name not in TERMINATORS:
            raise EncodeError(f"a region of {owner.name} must end with yield, continue, break "
                              "or return")
        w.varint(1)  # blocks per region
        w.varint(len(block.args))
        for a in block.args:
            w.varint(self.t.type(a.type))
        mark = len(self.scope)
        for a in block.args:
            self.define(a)
        inner = Writer()
        for op in block.ops:
            self.op(inner, op)
        w.varint(len(block.ops))
        w.raw(inner.buf)
        for v in self.scope[mark:]:
            del self.ids[v]
        del self.scope[mark:]

