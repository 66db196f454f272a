"""Kernel parameters in memory: one entry parameter per slot of the lowering's entry ABI
(`compiler/lower/abi.py: EntrySlot`), each at its natural C alignment.

The layout (struct format, offsets, the `void*[]` array cuLaunchKernel reads) is computed once
per specialization; a launch only writes values into the reused buffer.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...compiler.dtypes import BY_NAME
from ...compiler.lower.abi import EntrySlot
from .. import hostdtypes

# struct codes per ctype; narrow floats go in as their storage bits (see _scalar_encoder)
FORMATS = {"u64": "Q", "i64": "q", "i32": "i", "u32": "I", "i16": "h", "u16": "H", "i8": "b",
            "u8": "B", "f32": "f", "f64": "d", "f16": "e", "bool_": "?", "bf16": "H",
            "tf32": "f", "f8e4m3": "B", "f8e5m2": "B"}

Getter = Callable[[Sequence[Any]], Any]


def _scalar_encoder(ctype: str) -> Callable[[Any], Any]:
    """A Python number -> what struct packs for this ctype (rounded as the device rounds)."""
    if ctype in ("bf16", "tf32", "f8e4m3", "f8e5m2"):
        dt = BY_NAME[ctype]
        return lambda v: hostdtypes.encode(np.asarray([v], np.float32), dt)[0].item()
    if ctype == "bool_":
        return bool
    if ctype in ("f16", "f32", "f64"):
        return float
    return int


def _getter(slot: EntrySlot) -> Getter:
    i, axis = slot.arg, slot.axis

    def tensor(v: Any) -> Any:
        return getattr(v, "_tensor", v)  # a Mut partition passes its tensor

    if slot.field == "ptr":  # tensors and partitions cache the address of element 0
        return lambda args: args[i]._base
    if slot.field == "shape":
        return lambda args: tensor(args[i])._shape[axis]
    if slot.field == "stride":
        return lambda args: tensor(args[i])._strides[axis]
    encode = _scalar_encoder(slot.ctype)
    return lambda args: encode(args[i])


class Packer:
    """Writes one launch's parameter values; `pack` returns the address of the `void*[]`."""

    def __init__(self, slots: Sequence[EntrySlot]) -> None:
        self.slots = tuple(slots)
        offsets, fmt, end = [], "<", 0
        for slot in self.slots:
            code = FORMATS[slot.ctype]
            size = struct.calcsize(code)
            start = -(-end // size) * size  # natural alignment
            fmt += "x" * (start - end) + code
            offsets.append(start)
            end = start + size
        self.format = fmt
        self.offsets = tuple(offsets)
        self.size = end
        self._struct = struct.Struct(fmt)
        self._getters = tuple(_getter(s) for s in self.slots)
        self._buffer = ctypes.create_string_buffer(max(end, 8))
        base = ctypes.addressof(self._buffer)
        self._pointers = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.address = ctypes.addressof(self._pointers)
        # parameters whose memory a launch touches (their buffers learn the launch's stream)
        self.tensor_args = tuple(sorted({s.arg for s in self.slots if s.field == "ptr"}))

    def values(self, args: Sequence[Any]) -> list[Any]:
        return [get(args) for get in self._getters]

    def pack(self, args: Sequence[Any]) -> int:
        self._struct.pack_into(self._buffer, 0, *[get(args) for get in self._getters])
        return self.address
