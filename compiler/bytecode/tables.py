"""The interned tables of a bytecode module: strings, types and dense constants.

Each entry is deduplicated by its encoded bytes. Types intern their dependencies first, so a
type's operands always have lower indices, which the reader requires.
"""

from __future__ import annotations

from .attrs import Dense
from .types import Type, decode_type, encode_type
from .version import Version
from .wire import BytecodeFormatError, Reader, Writer


class Table:
    """Encoded entries in index order."""

    def __init__(self) -> None:
        self.entries: list[bytes] = []
        self._index: dict[bytes, int] = {}

    def add(self, entry: bytes) -> int:
        idx = self._index.get(entry)
        if idx is None:
            idx = self._index[entry] = len(self.entries)
            self.entries.append(entry)
        return idx

    def write(self, index_width: int) -> bytes:
        """count, pad to the index width, offsets (relative to the data), then the data."""
        w = Writer()
        w.varint(len(self.entries))
        w.pad_to(index_width)
        offset = 0
        for e in self.entries:
            w.int_le(offset, index_width)
            offset += len(e)
        for e in self.entries:
            w.raw(e)
        return bytes(w.buf)


def read_table(payload: bytes, index_width: int) -> list[bytes]:
    r = Reader(payload)
    n = r.varint()
    r.skip_pad(index_width)
    offsets = [r.int_le(index_width, signed=False) for _ in range(n)]
    base = r.pos
    ends = [*offsets[1:], len(payload) - base]
    out = []
    for start, end in zip(offsets, ends, strict=True):
        if not 0 <= start <= end <= len(payload) - base:
            raise BytecodeFormatError("table offsets out of order")
        out.append(payload[base + start:base + end])
    return out


class ModuleTables:
    """The three tables a writer fills while it encodes function bodies."""

    def __init__(self, version: Version) -> None:
        self.version = version
        self.strings = Table()
        self.types = Table()
        self.constants = Table()
        self._type_ids: dict[Type, int] = {}

    def string(self, text: str) -> int:
        return self.strings.add(text.encode())

    def type(self, ty: Type) -> int:
        idx = self._type_ids.get(ty)
        if idx is None:
            idx = self._type_ids[ty] = self.types.add(encode_type(ty, self.version, self.type))
        return idx

    def constant(self, value: Dense) -> int:
        w = Writer()
        w.varint(len(value.data))
        w.raw(value.data)
        return self.constants.add(bytes(w.buf))


class DecodedTables:
    """Read side: the tables of a module, decoded lazily by index."""

    def __init__(self, version: Version, strings: list[bytes], types: list[bytes],
                 constants: list[bytes]) -> None:
        self.version = version
        self._strings = strings
        self._type_entries = types
        self._constants = constants
        self._types: dict[int, Type] = {}

    def string(self, idx: int) -> str:
        if idx >= len(self._strings):
            raise BytecodeFormatError(f"string index {idx} out of range")
        return self._strings[idx].decode()

    def type(self, idx: int) -> Type:
        if idx not in self._types:
            if idx >= len(self._type_entries):
                raise BytecodeFormatError(f"type index {idx} out of range")
            self._types[idx] = decode_type(self._type_entries[idx], self.version, self._dep(idx))
        return self._types[idx]

    def _dep(self, owner: int) -> _Dep:
        return _Dep(self, owner)

    def constant(self, idx: int) -> Dense:
        if idx >= len(self._constants):
            raise BytecodeFormatError(f"constant index {idx} out of range")
        r = Reader(self._constants[idx])
        return Dense(r.raw(r.varint()))


class _Dep:
    """A type lookup that only allows lower indices (dependencies must come first)."""

    def __init__(self, tables: DecodedTables, owner: int) -> None:
        self.tables = tables
        self.owner = owner

    def __call__(self, idx: int) -> Type:
        if idx >= self.owner:
            raise BytecodeFormatError(f"type {self.owner} refers to a later type {idx}")
        return self.tables.type(idx)
