"""NVIDIA's attribute records in a cubin's `.nv.info`, `.nv.info.<fn>` and `.nv.compat` sections.

Each record is a format byte, an attribute id byte and a 16-bit field; for EIFMT_SVAL the field
is the length of the value bytes that follow, otherwise it is the value itself (NVAL: none,
BVAL: one byte, HVAL: two bytes). The ids below were matched against `cuobjdump -elf` on
tileiras 13.4 cubins for sm_80, sm_90 and sm_100.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .elf import ElfError

EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4

# EIATTR ids (per-function sections, and `.nv.info` where the value starts with a symbol index)
MAX_THREADS = 0x05
REQNTID = 0x10
FRAME_SIZE = 0x11
MIN_STACK_SIZE = 0x12
MAXREG_COUNT = 0x1B
CRS_STACK_SIZE = 0x1E
MAX_STACK_SIZE = 0x23
REGCOUNT = 0x2F
NUM_MBARRIERS = 0x38
CTA_PER_CLUSTER = 0x3D
NUM_BARRIERS = 0x4C
TCGEN05_1CTA_USED = 0x51
TCGEN05_2CTA_USED = 0x52
REG_RECONFIG = 0x54  # setmaxnreg: warp groups trade registers (warp specialization)
ANNOTATIONS = 0x55
# EICOMPAT ids (`.nv.compat`)
COMPAT_INST_TENSORMAP_V1 = 0x03  # the code uses tensor-map (TMA) instructions

SPILL_REFILL = 1  # an ANNOTATIONS entry kind: this instruction spills or refills a register


@dataclass(frozen=True)
class Attr:
    fmt: int
    id: int
    value: bytes  # the SVAL bytes, or the 16-bit field for the other formats

    def number(self) -> int:
        """The value as one unsigned integer (a BVAL/HVAL field, or a 4-byte SVAL)."""
        return int.from_bytes(self.value, "little")

    def words(self) -> tuple[int, ...]:
        """An SVAL read as little-endian 32-bit words."""
        return struct.unpack_from(f"<{len(self.value) // 4}I", self.value)


def parse_attrs(data: bytes) -> tuple[Attr, ...]:
    out: list[Attr] = []
    pos = 0
    while pos + 4 <= len(data):
        fmt, ident, field = data[pos], data[pos + 1], int.from_bytes(data[pos + 2:pos + 4],
                                                                      "little")
        pos += 4
        if fmt == EIFMT_SVAL:
            if pos + field > len(data):
                raise ElfError(f"attribute {ident:#x} runs past the end of its section")
            out.append(Attr(fmt, ident, data[pos:pos + field]))
            pos += field
        elif fmt in (EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL):
            width = {EIFMT_NVAL: 0, EIFMT_BVAL: 1, EIFMT_HVAL: 2}[fmt]
            out.append(Attr(fmt, ident, field.to_bytes(2, "little")[:width]))
        else:
            raise ElfError(f"unknown attribute format {fmt:#x} at offset {pos - 4:#x}")
    if pos != len(data):
        raise ElfError("an attribute section ends mid-record")
    return tuple(out)


def first(attrs: tuple[Attr, ...], ident: int) -> Attr | None:
    return next((a for a in attrs if a.id == ident), None)


def per_symbol(attrs: tuple[Attr, ...], ident: int, symbol: int) -> int | None:
    """A `.nv.info` value for one function: SVAL (symbol index, value) pairs."""
    for a in attrs:
        if a.id == ident and a.fmt == EIFMT_SVAL and len(a.value) == 8:
            sym, value = a.words()
            if sym == symbol:
                return value
    return None


def spill_refills(attrs: tuple[Attr, ...]) -> int:
    """How many instructions ANNOTATIONS marks as register spills or refills
    ((kind, offset) word pairs)."""
    total = 0
    for a in attrs:
        if a.id == ANNOTATIONS and a.fmt == EIFMT_SVAL and len(a.value) % 8 == 0:
            words = a.words()
            total += sum(1 for kind in words[0::2] if kind == SPILL_REFILL)
    return total
