"""The entry ABI: which kernel parameters a launch passes, and the tensor views built from them.

Per tensor or Mut parameter (signature order): the base pointer, then each extent that is not
static, then each stride that is not static (in elements, i32). Extents are static when the
signature fixes them (an int or a Const name; Mut slabs never, their tensor is the whole output);
strides are static when the tensor is contiguous and the extents after them are static (so a
contiguous tensor's unit inner stride always is). A scalar passes its value as a rank-0 tile.
Consts pass nothing: they are baked into the code. A kernel with a run-time range() step gets
one more parameter, last: a pointer to the launch's status word (`loops.py`). `EntrySlot` tells
the launcher what to write into each parameter (it matches the runtime's `Slot`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..bytecode import Builder, Value
from ..bytecode.attrs import Bounded, DivBy
from ..bytecode.types import PtrType, Scalar, TensorViewType
from ..bytecode.types import TileType as BcTile
from ..bytecode.types import Type as BcType
from ..dtypes import DType
from ..ir import KernelIR, Op, walk
from ..specialization import MutFacts, Specialization, TensorFacts
from ..types import TensorType, TileType
from .types import I32_TILE, LowerError, scalar

Field = Literal["ptr", "shape", "stride", "value", "status"]


@dataclass(frozen=True)
class EntrySlot:
    arg: int  # parameter index in signature order
    field: Field
    axis: int = 0
    ctype: str = "i32"  # u64 pointers, i32 extents/strides, the dtype name for scalars


@dataclass(frozen=True)
class TensorArg:
    """How one tensor parameter arrives: its view type and where its dynamic values are."""

    param: int
    dtype: DType
    view: TensorViewType
    facts: TensorFacts | None
    mutable: bool


@dataclass
class ViewParts:
    """What a tensor view was made of (for views of a Mut slab made from the same parts)."""

    base: Value  # the base pointer, with its alignment assumed
    shape: list[Value]  # per axis, i32 (Mut tensors' extents are always passed)
    strides: list[Value | int]  # per axis: i32, or the static stride


@dataclass
class EntryABI:
    types: list[BcType]
    slots: list[EntrySlot]
    tensors: dict[int, TensorArg]  # by parameter index
    scalars: dict[int, int]  # parameter index -> entry argument index
    status: int | None = None  # entry argument index of the launch's status word (loops.py)


def _facts(spec: Specialization, i: int) -> tuple[TensorFacts | None, MutFacts | None]:
    f = spec.args[i] if i < len(spec.args) else None
    if isinstance(f, MutFacts):
        return f.tensor, f
    if isinstance(f, TensorFacts):
        return f, None
    return None, None


def range_checks(kernel: KernelIR) -> list[Op]:
    """The kernel's `range_check` ops (loops.py), numbered in this order in the status word,
    the entry's last parameter when there are any (the runtime walks the specialized IR the
    same way to find each one's span)."""
    return [op for op in walk(kernel.body) if op.name == "range_check"]


def entry_abi(kernel: KernelIR, spec: Specialization) -> EntryABI:
    abi = EntryABI([], [], {}, {})
    for i, p in enumerate(kernel.params):
        t = p.value.type
        if p.kind in ("tensor", "mut", "acc"):
            assert isinstance(t, TensorType)
            facts, _ = _facts(spec, i)
            if facts is not None and (facts.dtype != t.dtype or facts.rank != t.rank):
                raise LowerError(f"facts for '{p.name}' describe a {facts.dtype} tensor of rank "
                                 f"{facts.rank}, the signature a {t.dtype} one of rank {t.rank}")
            shape: list[int | None] = [None] * t.rank
            if p.kind in ("tensor", "acc"):  # whole tensors: the signature's extents
                shape = [d if isinstance(d, int) and d >= 0 else None for d in t.shape]
            strides: list[int | None] = [None] * t.rank
            if facts is not None and facts.contiguous:
                for a in range(t.rank):
                    rest = shape[a + 1:]
                    if all(d is not None for d in rest):
                        strides[a] = math.prod(d for d in rest if d is not None)
            view = TensorViewType(scalar(t.dtype), tuple(shape), tuple(strides))
            abi.tensors[i] = TensorArg(i, t.dtype, view, facts, p.kind == "mut")
            abi.types.append(BcTile(PtrType(scalar(t.dtype))))
            abi.slots.append(EntrySlot(i, "ptr", 0, "u64"))
            for a, d in enumerate(shape):
                if d is None:
                    abi.types.append(I32_TILE)
                    abi.slots.append(EntrySlot(i, "shape", a))
            for a, s in enumerate(strides):
                if s is None:
                    abi.types.append(I32_TILE)
                    abi.slots.append(EntrySlot(i, "stride", a))
        elif p.kind == "scalar":
            assert isinstance(t, TileType)
            abi.scalars[i] = len(abi.types)
            abi.types.append(BcTile(scalar(t.dtype)))
            abi.slots.append(EntrySlot(i, "value", 0, t.dtype.name))
    if range_checks(kernel):
        # last: a pointer to this launch's status word (an i64 the runtime zeroes and reads)
        abi.status = len(abi.types)
        abi.types.append(BcTile(PtrType(Scalar.I64)))
        abi.slots.append(EntrySlot(len(kernel.params), "status", 0, "u64"))
    return abi


def make_views(b: Builder, abi: EntryABI, params: list[Value],
               parts: dict[int, ViewParts] | None = None) -> dict[int, Value]:
    """One tensor_view per tensor parameter, after `assume`s stating the specialization's facts
    (16-byte aligned bases and strides are what lets tileiras use TMA on sm_90). `parts` gets
    each Mut parameter's base, extents and strides."""
    views: dict[int, Value] = {}
    pos = 0
    for i in sorted(abi.tensors):
        # Parameters are laid out in the order entry_abi appended them; find this tensor's run.
        while abi.slots[pos].arg != i:
            pos += 1
        arg = abi.tensors[i]
        f = arg.facts
        base = params[pos]
        if f is not None and f.align > 1:
            base = b.emit("assume", [base.type], base, predicate=DivBy(f.align))
        pos += 1
        shapes: list[Value] = []
        strides: list[Value] = []
        while pos < len(abi.slots) and abi.slots[pos].arg == i:
            slot, v = abi.slots[pos], params[pos]
            if slot.field == "shape":
                div = f.shape_div[slot.axis] if f is not None else 1
                if div > 1:
                    v = b.emit("assume", [I32_TILE], v, predicate=DivBy(div))
                v = b.emit("assume", [I32_TILE], v, predicate=Bounded(0, None))
                shapes.append(v)
            else:
                div = f.stride_div_elems(slot.axis) if f is not None else 1
                if div > 1:
                    v = b.emit("assume", [I32_TILE], v, predicate=DivBy(div))
                strides.append(v)
            pos += 1
        views[i] = b.op("make_tensor_view", [arg.view], base, shapes, strides).result
        if parts is not None and arg.mutable and len(shapes) == len(arg.view.shape):
            dyn = iter(strides)
            parts[i] = ViewParts(base, shapes, [next(dyn) if st is None else st
                                                for st in arg.view.strides])
    return views
