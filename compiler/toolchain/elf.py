"""The little of ELF64 that a cubin's resource report needs: section headers and symbols.

Little-endian ELF64 only (every cubin tileiras writes). Problems raise `ElfError`; callers turn
it into a diagnostic.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # e_ident .. e_shstrndx
_SECTION = struct.Struct("<IIQQQQIIQQ")  # sh_name .. sh_entsize
_SYMBOL = struct.Struct("<IBBHQQ")  # st_name, st_info, st_other, st_shndx, st_value, st_size
SHT_SYMTAB = 2
SHT_NOBITS = 8


class ElfError(ValueError):
    """The bytes are not a well-formed little-endian ELF64 file."""


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int


@dataclass(frozen=True)
class Symbol:
    name: str
    info: int  # binding << 4 | type
    other: int  # visibility, plus NVIDIA's entry-point bit
    section: int
    size: int


@dataclass(frozen=True)
class Elf:
    data: bytes
    flags: int  # e_flags: for cubins, the SM version and its variant bits
    sections: tuple[Section, ...]
    symbols: tuple[Symbol, ...]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def contents(self, s: Section) -> bytes:
        return b"" if s.type == SHT_NOBITS else self.data[s.offset:s.offset + s.size]


def read_elf(data: bytes) -> Elf:
    if len(data) < _HEADER.size or data[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError("not a little-endian 64-bit ELF file")
    head = _HEADER.unpack_from(data)
    flags, shoff, shentsize, shnum, shstrndx = head[7], head[6], head[11], head[12], head[13]
    if shentsize != _SECTION.size or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise ElfError("section header table out of bounds")
    raw = [_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    names = _bounded(data, raw[shstrndx][4], raw[shstrndx][5])
    sections = tuple(Section(_string(names, r[0]), r[1], r[2], r[4], r[5], r[6], r[7])
                     for r in raw)
    for s in sections:
        if s.type != SHT_NOBITS:
            _bounded(data, s.offset, s.size)
    return Elf(data, flags, sections, _symbols(data, sections))


def _symbols(data: bytes, sections: tuple[Section, ...]) -> tuple[Symbol, ...]:
    table = next((s for s in sections if s.type == SHT_SYMTAB), None)
    if table is None:
        return ()
    if table.link >= len(sections):
        raise ElfError("symbol table names a missing string table")
    strings = _bounded(data, sections[table.link].offset, sections[table.link].size)
    count = table.size // _SYMBOL.size
    rows = (_SYMBOL.unpack_from(data, table.offset + i * _SYMBOL.size) for i in range(count))
    return tuple(Symbol(_string(strings, r[0]), r[1], r[2], r[3], r[5]) for r in rows)


def _bounded(data: bytes, offset: int, size: int) -> bytes:
    if offset + size > len(data):
        raise ElfError(f"a section at {offset:#x} runs past the end of the file")
    return data[offset:offset + size]


def _string(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise ElfError(f"string offset {offset:#x} out of bounds")
    return table[offset:end].decode("utf-8", "replace")
