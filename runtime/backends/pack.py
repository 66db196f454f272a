"""Kernel parameters in memory: one entry parameter per slot of the lowering's entry ABI
(`compiler/lower/abi.py: EntrySlot`), each at its natural C alignment.

The layout (struct format, offsets, the `void*[]` array cuLaunchKernel reads) is computed once
per specialization; a launch only writes values into the reused buffer.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ...compiler.dtypes import BY_NAME
from ...compiler.lower.abi import EntrySlot
from .. import hostdtypes
from ..sites import internal_files
from .base import Statics

_FILENAME = "<cutile parameter packer>"
internal_files[_FILENAME] = True

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
    dt = BY_NAME.get(ctype)
    if dt is None or not dt.is_float:
        return bool if ctype == "bool_" else int
    if dt.rounded:  # narrow floats go in as their storage bits
        return lambda v: hostdtypes.encode(np.asarray([v]), dt)[0].item()
    to = np.dtype(dt.numpy_name).type

    def encode(v: Any) -> Any:
        # a Python float, or an int a float64 holds exactly: struct rounds it once, as NumPy
        # does; any other number (an int past 2**53, a NumPy scalar) through NumPy, so it is
        # not rounded twice
        if type(v) is float:
            return v
        if type(v) is int and -_EXACT <= v <= _EXACT:
            return float(v)
        return np.asarray(v).astype(to).item()

    return encode


_EXACT = 2**53  # ints up to this size convert to a float64 exactly


def _value_source(slot: EntrySlot, encoders: dict[str, Callable[[Any], Any]]) -> str:
    """The Python expression for one slot's value, over `a<i>` (the launch's argument i) and
    `t<i>` (argument i's tensor: a Mut partition passes its tensor)."""
    i, axis = slot.arg, slot.axis
    if slot.field == "ptr":  # tensors and partitions cache the address of element 0
        return f"a{i}._base"
    if slot.field == "shape":
        return f"t{i}._shape[{axis}]"
    if slot.field == "stride":
        return f"t{i}._strides[{axis}]"
    if slot.field == "status":  # the address of the launch's status word (status.py)
        return f"a{i}"
    name = f"enc_{slot.ctype}"
    encoders[name] = _scalar_encoder(slot.ctype)
    return f"{name}(a{i})"


def _static_value(slot: EntrySlot, statics: Statics) -> int | None:
    """A slot's value when every launch through the packer has it (an extent or a stride of
    a handle whose shape the launch plan fixes), else None."""
    handle = statics.get(slot.arg)
    if handle is None or slot.field not in ("shape", "stride"):
        return None
    _, shape, strides = handle
    return (shape if slot.field == "shape" else strides)[slot.axis]


def _layout(slots: Sequence[EntrySlot], start: int = 0) -> tuple[str, list[int], int]:
    """The struct format (little-endian, each value at its natural alignment), offsets and
    end of `slots` packed one after another from byte `start`."""
    offsets, fmt, end = [], "<" + "x" * start, start
    for slot in slots:
        code = FORMATS[slot.ctype]
        size = struct.calcsize(code)
        at = -(-end // size) * size  # natural alignment
        fmt += "x" * (at - end) + code
        offsets.append(at)
        end = at + size
    return fmt, offsets, end


class Packer:
    """One launch's parameter block: the values in a reused buffer and the `void*[]` of their
    addresses that cuLaunchKernel reads (`address`).

    `statics` (a launch plan's, `Executable.planned`): per tensor or partition parameter,
    whether it is a partition and the shape and strides every launch through this packer
    has. Their extent and stride slots are then written once, here, after the slots that
    change per launch (pointers, scalars, the status word), so a launch writes only those,
    with one struct write. Without it every slot is written per launch, in slot order."""

    def __init__(self, slots: Sequence[EntrySlot], statics: Statics | None = None) -> None:
        self.slots = tuple(slots)
        self.statics: Statics = statics or {}
        fixed = {n: v for n, s in enumerate(self.slots)
                 if (v := _static_value(s, self.statics)) is not None}
        dynamic = [s for n, s in enumerate(self.slots) if n not in fixed]
        static = [s for n, s in enumerate(self.slots) if n in fixed]
        fmt, dyn_offsets, end = _layout(dynamic)
        static_fmt, static_offsets, end = _layout(static, end)
        self.format = fmt
        self.size = end
        self.buffer = ctypes.create_string_buffer(max(end, 8))
        struct.pack_into(static_fmt, self.buffer, 0, *fixed.values())  # pads: the zeros there
        at = dict(zip([n for n in range(len(self.slots)) if n not in fixed], dyn_offsets,
                      strict=True))
        at.update(zip(fixed, static_offsets, strict=True))
        self.offsets = tuple(at[n] for n in range(len(self.slots)))  # per slot, in slot order
        base = ctypes.addressof(self.buffer)
        self._pointers = (ctypes.c_void_p * max(len(self.slots), 1))(
            *[base + o for o in self.offsets])
        self.address = ctypes.addressof(self._pointers)
        # parameters whose memory a launch touches (their buffers learn the launch's stream)
        self.tensor_args = tuple(sorted({s.arg for s in self.slots if s.field == "ptr"}))
        self.dynamic = tuple(dynamic)  # the slots a launch writes, and where
        self.dynamic_offsets = tuple(dyn_offsets)
        self._write = struct.Struct(fmt).pack_into

    @cached_property
    def pack(self) -> Callable[[Sequence[Any]], int]:
        """Writes one launch's values into the buffer; returns the `void*[]` address (launches
        go through `runner`; this is made on first use)."""
        pack: Callable[[Sequence[Any]], int] = self._generate(
            ["def pack(a):"], ["    return address"], {})
        return pack

    def runner(self, launch: Callable[[tuple[int, int, int], int, int], None]
               ) -> Callable[[Sequence[Any], tuple[int, int, int], int], None]:
        """`run(a, grid, s)`: one launch as straight-line code: each tensor argument's buffer
        learns the stream (the caching allocator reuses a block only after every stream that
        used it; a buffer starts out knowing its allocation stream, so the usual launch only
        tests membership), the values are written, and `launch(grid, s, address)` is called."""
        lines = ["def run(a, grid, s):"]
        for i in self.tensor_args:
            lines += [f"    b = {self._tensor_of(i)}._buf",
                      "    if b is not None and s not in b.streams:",
                      "        b.streams.add(s)"]
        run: Callable[[Sequence[Any], tuple[int, int, int], int], None] = self._generate(
            lines, ["    launch(grid, s, address)"], {"launch": launch})
        return run

    def _tensor_of(self, i: int) -> str:
        """Argument i's tensor: a partition's `_tensor` when the statics say it is one."""
        handle = self.statics.get(i)
        if handle is None:
            return f"getattr(a{i}, '_tensor', a{i})"
        return f"a{i}._tensor" if handle[0] else f"a{i}"

    def _generate(self, head: list[str], tail: list[str], scope: dict[str, Any]) -> Any:
        """A function of `a` (the launch's values): `head`, the arguments it needs unpacked,
        one struct write of the per-launch slots, then `tail`. Generated once per packer
        (this runs on every launch)."""
        encoders: dict[str, Callable[[Any], Any]] = {}
        values = [_value_source(s, encoders) for s in self.dynamic]
        used = sorted({s.arg for s in self.slots})
        tensors = sorted({s.arg for s in self.dynamic if s.field in ("shape", "stride")})
        lines = [f"    a{i} = a[{i}]" for i in used]
        lines += head[1:]  # after the unpacking: the head's body reads a<i>
        lines += [f"    t{i} = {self._tensor_of(i)}" for i in tensors]
        if values:
            lines.append(f"    write(buffer, 0, {', '.join(values)})")
        source = "\n".join([head[0], *lines, *tail])
        scope = {**scope, "write": self._write, "buffer": self.buffer,
                 "address": self.address, **encoders}
        # the source is built above from slot fields and indices only; its frames are cutile's
        # (an error raised in it points at the user's line, not at "<string>")
        exec(compile(source, _FILENAME, "exec"), scope)
        return scope[head[0][4:head[0].index("(")]]
