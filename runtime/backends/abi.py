"""Kernel parameter packing: one entry parameter per slot, at natural C alignment.

The slot list is the calling convention between the lowering and the launcher. Default (used
until the lowering states its own): for each non-Const parameter in signature order, a tensor or
Mut slab passes its base pointer (u64), then every extent (i32), then every stride in elements
(i32); a scalar passes its value in its own dtype. The layout is computed once per
specialization; a launch only writes values into a reused buffer.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..partition import Partition
from ..tensor import Tensor

Field = Literal["ptr", "shape", "stride", "value"]
_FORMATS = {"u64": "Q", "i64": "q", "i32": "i", "u32": "I", "i16": "h", "u16": "H", "i8": "b",
            "u8": "B", "f32": "f", "f64": "d", "f16": "e", "bool_": "?"}


@dataclass(frozen=True)
class Slot:
    arg: int  # index into the launch's values (signature order)
    field: Field
    axis: int = 0
    ctype: str = "i32"  # key of _FORMATS


def default_slots(kinds: Sequence[str], ranks: Sequence[int],
                  scalar_types: Sequence[str | None]) -> list[Slot]:
    slots: list[Slot] = []
    for i, kind in enumerate(kinds):
        if kind in ("tensor", "mut"):
            slots.append(Slot(i, "ptr", 0, "u64"))
            slots += [Slot(i, "shape", a) for a in range(ranks[i])]
            slots += [Slot(i, "stride", a) for a in range(ranks[i])]
        elif kind == "scalar":
            slots.append(Slot(i, "value", 0, scalar_types[i] or "f32"))
    return slots


class Packer:
    """Writes one launch's parameter values; returns the address of the `void*[]` array."""

    def __init__(self, slots: Sequence[Slot]) -> None:
        self.slots = tuple(slots)
        offsets, fmt, end = [], "<", 0
        for slot in self.slots:
            code = _FORMATS[slot.ctype]
            size = struct.calcsize(code)
            start = -(-end // size) * size  # natural alignment
            fmt += "x" * (start - end) + code
            offsets.append(start)
            end = start + size
        self.format = fmt
        self.offsets = tuple(offsets)
        self.size = end
        self._buffer = ctypes.create_string_buffer(max(end, 8))
        base = ctypes.addressof(self._buffer)
        self._pointers = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.address = ctypes.addressof(self._pointers)

    def values(self, args: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for slot in self.slots:
            v = args[slot.arg]
            t = v._tensor if isinstance(v, Partition) else v
            if slot.field == "value":
                out.append(v)
            elif not isinstance(t, Tensor) or t._buf is None:
                raise TypeError(f"slot {slot} needs a tensor")
            elif slot.field == "ptr":
                out.append(t._buf.ptr + t._offset)
            elif slot.field == "shape":
                out.append(t._shape[slot.axis])
            else:
                out.append(t._strides[slot.axis])
        return out

    def pack(self, args: Sequence[Any]) -> int:
        struct.pack_into(self.format, self._buffer, 0, *self.values(args))
        return self.address
