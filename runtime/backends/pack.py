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
            "tf32": "f", "f8e4m3": "B", "f8e5m2": "B", "f4e2m1": "B", "f8e8m0": "B"}

def _scalar_encoder(ctype: str) -> Callable[[Any], Any]:
    """A Python number -> what struct packs for this ctype, converted exactly as the
    interpreter converts a scalar argument (`interpreter/numeric.fit`: NumPy's conversion of
    the value given, rounded once to nearest even; f8 past its range is NaN or inf, f4
    saturates). The launch contract has refused values a format cannot hold (CT406), so none
    raises here."""
    if ctype in ("bf16", "tf32", "f8e4m3", "f8e5m2", "f4e2m1", "f8e8m0"):
        dt = BY_NAME[ctype]
        return lambda v: hostdtypes.encode(np.asarray([v]), dt)[0].item()
    if ctype == "bool_":
        return bool
    if ctype in _FLOATS:
        to = _FLOATS[ctype]

        def encode(v: Any) -> Any:
            # a Python float, or an int a float64 holds exactly: struct rounds it once, as
            # NumPy does; any other number (an int past 2**53, a NumPy scalar) through NumPy,
            # so it is not rounded twice
            if type(v) is float:
                return v
            if type(v) is int and -_EXACT <= v <= _EXACT:
                return float(v)
            return np.asarray(v).astype(to).item()

        return encode
    return int


_FLOATS: dict[str, type[np.floating[Any]]] = {"f16": np.float16, "f32": np.float32,
                                             "f64": np.float64}
_EXACT = 2**53  # ints up to this size convert to a float64 exactly


def _value_source(slot: EntrySlot, encoders: dict[str, Callable[[Any], Any]]) -> str:
    """The Python expression for one slot's value, over `a` (the launch's arguments) and `t<i>`
    (argument i's tensor: a Mut partition passes its tensor)."""
    i, axis = slot.arg, slot.axis
    if slot.field == "ptr":  # tensors and partitions cache the address of element 0
        return f"a[{i}]._base"
    if slot.field == "shape":
        return f"t{i}._shape[{axis}]"
    if slot.field == "stride":
        return f"t{i}._strides[{axis}]"
    if slot.field == "status":  # the address of the launch's status word (status.py)
        return f"a[{i}]"
    name = f"enc_{slot.ctype}"
    encoders[name] = _scalar_encoder(slot.ctype)
    return f"{name}(a[{i}])"


def _pack_function(slots: Sequence[EntrySlot], write: Callable[..., None], buffer: Any,
                   address: int) -> Callable[[Sequence[Any]], int]:
    """`pack(a)`, generated once per specialization as straight-line code: one struct write of
    every slot's value and no call per slot (this runs on every launch)."""
    encoders: dict[str, Callable[[Any], Any]] = {}
    values = [_value_source(s, encoders) for s in slots]
    tensors = sorted({s.arg for s in slots if s.field in ("shape", "stride")})
    lines = ["def pack(a):"]
    lines += [f"    t{i} = getattr(a[{i}], '_tensor', a[{i}])" for i in tensors]
    lines += [f"    write(buffer, 0, {', '.join(values)})", "    return address"]
    scope: dict[str, Any] = {"write": write, "buffer": buffer, "address": address, **encoders}
    exec("\n".join(lines), scope)  # the source is built above from slot fields only
    pack: Callable[[Sequence[Any]], int] = scope["pack"]
    return pack


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
        self._buffer = ctypes.create_string_buffer(max(end, 8))
        base = ctypes.addressof(self._buffer)
        self._pointers = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.address = ctypes.addressof(self._pointers)
        # parameters whose memory a launch touches (their buffers learn the launch's stream)
        self.tensor_args = tuple(sorted({s.arg for s in self.slots if s.field == "ptr"}))
        # writes one launch's values into the buffer; returns the `void*[]` address
        self.pack = _pack_function(self.slots, self._struct.pack_into, self._buffer,
                                   self.address)
