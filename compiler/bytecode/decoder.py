"""Bytecode bytes -> Module, driven by the same op table as the encoder (for tests and --dump)."""

from __future__ import annotations

from .attrs import Dense, Hints
from .builder import sized_default
from .encoder import FN_ENTRY, FN_HINTS, MAGIC, Section
from .ir import Block, Function, Module, Op, OperandGroup, Value
from .opspec import A, O, OpSpec
from .optable import BY_OPCODE
from .tables import DecodedTables, read_table
from .tagged import read_hints_body, read_tagged, read_tagged_list
from .types import FunctionType
from .version import Version
from .wire import BytecodeFormatError, Reader

_TABLE_WIDTH = {Section.STRING: 4, Section.TYPE: 4, Section.CONSTANT: 8}


def read_version(data: bytes) -> Version:
    if data[:8] != MAGIC or len(data) < 12:
        raise BytecodeFormatError("not Tile IR bytecode (bad magic)")
    return Version(data[8], data[9])


def decode(data: bytes) -> Module:
    version = read_version(data)
    r = Reader(data, 12)
    sections: dict[int, bytes] = {}
    while True:
        head = r.u8()
        sid = head & 0x7F
        if sid == Section.END:
            break
        length = r.varint()
        if head & 0x80:
            r.skip_pad(r.varint())
        if sid in sections:
            raise BytecodeFormatError(f"section {sid} appears twice")
        sections[sid] = r.raw(length)
    if not r.at_end():
        raise BytecodeFormatError(f"{r.end - r.pos} bytes after the end marker")
    if Section.FUNC not in sections:
        raise BytecodeFormatError("no function section")

    def table(sid: Section) -> list[bytes]:
        return read_table(sections[sid], _TABLE_WIDTH[sid]) if sid in sections else []

    tables = DecodedTables(version, table(Section.STRING), table(Section.TYPE),
                           table(Section.CONSTANT))
    fr = Reader(sections[Section.FUNC])
    module = Module()
    for _ in range(fr.varint()):
        module.functions.append(_read_function(fr, tables))
    if not fr.at_end():
        raise BytecodeFormatError("trailing bytes in the function section")
    return module


def _read_function(r: Reader, t: DecodedTables) -> Function:
    name = t.string(r.varint())
    sig = t.type(r.varint())
    if not isinstance(sig, FunctionType):
        raise BytecodeFormatError(f"function {name} has non-function type {sig}")
    flags = r.u8()
    r.varint()  # debug location index
    hints = read_tagged(r, t) if flags & FN_HINTS else None
    if hints is not None and not isinstance(hints, Hints):
        raise BytecodeFormatError(f"function {name}: hints attribute is {hints}")
    length = r.varint()
    body_end = r.pos + length
    params = [Value(ty, f"arg{i}") for i, ty in enumerate(sig.inputs)]
    body = _BodyReader(t, Reader(r.data, r.pos, body_end), params)
    block = Block(params)
    while not body.r.at_end():
        block.ops.append(body.op())
    r.pos = body_end
    return Function(name, params, block, entry=bool(flags & FN_ENTRY),
                    hints=hints, results=sig.outputs)


class _BodyReader:
    def __init__(self, tables: DecodedTables, r: Reader, params: list[Value]) -> None:
        self.t = tables
        self.r = r
        self.values: list[Value] = list(params)

    def value(self) -> Value:
        idx = self.r.varint()
        if idx >= len(self.values):
            raise BytecodeFormatError(f"value %{idx} is not defined here (offset {self.r.pos})")
        return self.values[idx]

    def op(self) -> Op:
        r, v = self.r, self.t.version
        opcode = r.varint()
        spec = BY_OPCODE.get(opcode)
        if spec is None:
            raise BytecodeFormatError(f"unknown opcode 0x{opcode:x} at offset {r.pos}")
        n = r.varint() if spec.counted_results else (spec.results or 0)
        result_types = [self.t.type(r.varint()) for _ in range(n)]
        flags = r.varint() if spec.has_flags(v) else 0
        attrs: dict[str, object] = {}
        for a in spec.attrs:
            if a.since > v:
                attrs[a.name] = a.default
            elif a.kind is A.UNIT:
                attrs[a.name] = bool(flags >> (a.flag or 0) & 1)
            elif a.flag is not None and not flags >> a.flag & 1:
                attrs[a.name] = None
            else:
                attrs[a.name] = self._attr(a.kind, a.enum)
        operands = self._operands(spec, flags)
        for a in spec.attrs:
            if a.since > v and a.sized_like is not None:
                attrs[a.name] = sized_default(spec, a.sized_like, operands)
        regions = []
        if spec.regions:
            for _ in range(r.varint()):
                regions.append(self.block())
        results = [Value(ty) for ty in result_types]
        self.values += results
        return Op(spec, results, operands, attrs, regions)

    def _operands(self, spec: OpSpec, flags: int) -> list[OperandGroup]:
        r = self.r
        total = r.varint() if spec.counted_operands else None
        out: list[OperandGroup] = []
        for field in spec.operands:
            if field.kind is O.ONE:
                out.append(self.value())
            elif field.kind is O.OPT:
                present = field.since <= self.t.version and flags >> (field.flag or 0) & 1
                out.append(self.value() if present else None)
            elif field.kind is O.SIZED:
                out.append([self.value() for _ in range(r.varint())])
            else:
                assert total is not None
                rest = total - spec.fixed_operands()
                if rest < 0:
                    raise BytecodeFormatError(f"{spec.name} with {total} operands")
                out.append([self.value() for _ in range(rest)])
        return out

    def _attr(self, kind: A, enum_type: type | None) -> object:
        r = self.r
        if kind is A.ENUM:
            assert enum_type is not None
            raw = r.varint()
            try:
                return enum_type(raw)
            except ValueError:
                raise BytecodeFormatError(f"{raw} is not a {enum_type.__name__}") from None
        if kind is A.BOOL:
            return r.u8() != 0
        if kind is A.INT:
            return r.varint()
        if kind is A.STR:
            return self.t.string(r.varint())
        if kind is A.TYPE:
            return self.t.type(r.varint())
        if kind is A.I32S:
            return tuple(r.int_list(4))
        if kind is A.BOOLS:
            return tuple(r.bool_list())
        if kind is A.DENSE:
            value: Dense = self.t.constant(r.varint())
            return value
        if kind is A.TAGGED:
            return read_tagged(r, self.t)
        if kind is A.TAGGED_LIST:
            return read_tagged_list(r, self.t)
        if kind is A.HINTS:
            return read_hints_body(r, self.t)
        raise BytecodeFormatError(f"attribute kind {kind} has no inline encoding")

    def block(self) -> Block:
        r = self.r
        if r.varint() != 1:
            raise BytecodeFormatError("regions with more than one block are not supported")
        args = [Value(self.t.type(r.varint())) for _ in range(r.varint())]
        mark = len(self.values)
        self.values += args
        block = Block(args)
        for _ in range(r.varint()):
            block.ops.append(self.op())
        del self.values[mark:]
        return block
