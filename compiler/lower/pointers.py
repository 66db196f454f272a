"""Pointer tiles: element-addressed access to a tensor parameter, masked to its extents.

Gathers (`ct.gather`, `x.load_at`), unsafe scatters and atomics address elements one by one
rather than through a partition view. For a tensor parameter and one integer index tile per axis
(all of one shape), `element_pointers` gives a tile of pointers and an in-bounds mask:

    inside = AND over axes of (0 <= idx_a < extent_a)
    ptrs   = base + sum_a(where(inside, idx_a, 0) * stride_a)      (i64 arithmetic)

Out-of-range lanes point at the base (never outside the tensor) and are masked off, so a load
reads its padding there and a store or atomic drops them, whatever the index (negative, huge).
An axis whose index is known at compile time to lie inside the tensor (an `arange` of a static
extent's length or less, `gathers.static_range`) gets neither check nor clamp: its lanes are all
in range, and the pointer stays affine in the iota, which tileiras needs to vectorize a row
(LDG.E.128 instead of one LDG.E.U16 per bf16 element: a per-element mask or clamp on the
contiguous axis keeps it to one element per load).
Indices widen to i64 first (unsigned ones zero-extend), so no product overflows for tensors
below 2**63 elements. `TensorAddress.of` reads the base, extents and strides of a parameter from
the entry ABI once, in the kernel's prologue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..bytecode import Builder, Value
from ..bytecode.attrs import CmpPredicate, DivBy, Signedness
from ..bytecode.types import TOKEN, PtrType, Scalar, TensorViewType
from ..bytecode.types import TileType as BcTile
from ..dtypes import I64, DType
from . import arith
from .abi import EntryABI
from .padding import splat
from .types import I32_TILE, I64_TILE, LowerError


@dataclass(frozen=True)
class TensorAddress:
    """Where a tensor parameter's elements are: its base pointer (a rank-0 pointer tile) and its
    extents and strides in elements (rank-0 i32 tiles, constants where static)."""

    base: Value
    extents: tuple[Value, ...]
    strides: tuple[Value, ...]
    static: tuple[int | None, ...] = ()  # extents known at compile time (None: dynamic)

    @property
    def pointee(self) -> Scalar:
        t = self.base.type
        assert isinstance(t, BcTile) and isinstance(t.elem, PtrType)
        return t.elem.pointee

    @staticmethod
    def of(pro: Builder, abi: EntryABI, params: Sequence[Value], view: Value,
           param: int) -> TensorAddress:
        """Builds the address of parameter `param` (emit into the prologue: it dominates all)."""
        vt = view.type
        assert isinstance(vt, TensorViewType)
        slots = [(i, s) for i, s in enumerate(abi.slots) if s.arg == param]
        base = next((params[i] for i, s in slots if s.field == "ptr"), None)
        if base is None:
            raise LowerError(f"parameter {param} is not a tensor")
        # the launcher's alignment facts, as make_views states them: they let tileiras widen
        # the accesses of contiguous runs (rows of a gather, a load_at window)
        facts = abi.tensors[param].facts
        if facts is not None and facts.align > 1:
            base = pro.emit("assume", [base.type], base, predicate=DivBy(facts.align))
        dynamic = {}
        for i, s in slots:
            if s.field == "stride":
                div = facts.stride_div_elems(s.axis) if facts is not None else 1
                dynamic[s.axis] = params[i] if div <= 1 else pro.emit(
                    "assume", [I32_TILE], params[i], predicate=DivBy(div))
        strides = []
        for axis, st in enumerate(vt.strides):
            if st is None:
                strides.append(dynamic[axis])
            else:
                strides.append(pro.constant(st, I32_TILE))
        extents = pro.op("get_tensor_shape", [I32_TILE] * len(vt.shape), view).results
        return TensorAddress(base, tuple(extents), tuple(strides), tuple(vt.shape))


def widen(b: Builder, index: Value, dtype: DType) -> Value:
    """An integer index tile as i64 (sign- or zero-extended by its dtype)."""
    if dtype.bits == 64:
        return index
    return arith.astype(b, index, dtype, I64)


def _cmp(b: Builder, pred: CmpPredicate, x: Value, y: Value) -> Value:
    t = x.type
    assert isinstance(t, BcTile)
    return b.emit("cmpi", [BcTile(Scalar.I1, t.shape)], x, y, comparison_predicate=pred,
                  signedness=Signedness.SIGNED)


def element_pointers(b: Builder, addr: TensorAddress, indices: Sequence[tuple[Value, DType]],
                     shape: tuple[int, ...], ranges: Sequence[tuple[int, int] | None] = ()
                     ) -> tuple[Value, Value]:
    """(pointer tile, in-bounds mask) of `shape` for one index tile per axis. Each index has
    rank len(shape) with every dimension equal to shape's or 1 (or is rank 0): its axis's checks
    and products run at its own size, and only the sums broadcast to `shape`. `ranges[a]`, where
    given, is the compile-time [lo, hi] of axis a's index: inside a static extent, that axis is
    not checked."""
    if len(indices) != len(addr.extents):
        raise LowerError(f"{len(indices)} index tiles for a rank-{len(addr.extents)} tensor")
    mask: Value | None = None
    offset: Value | None = None
    for axis, ((index, dtype), extent, stride) in enumerate(
            zip(indices, addr.extents, addr.strides, strict=True)):
        known = ranges[axis] if axis < len(ranges) else None
        static = addr.static[axis] if axis < len(addr.static) else None
        if known is not None and static is not None and 0 <= known[0] <= known[1] < static:
            term = _scaled(b, widen(b, index, dtype), stride)
            offset = _sum(b, offset, _to_shape(b, term, shape))
            continue
        term, inside = _axis_term(b, widen(b, index, dtype), extent, stride)
        term, inside = _to_shape(b, term, shape), _to_shape(b, inside, shape)
        offset = _sum(b, offset, term)
        mask = inside if mask is None else b.emit("andi", [inside.type], mask, inside)
    if offset is not None and mask is None:  # every axis known inside
        mask = b.constant(True, BcTile(Scalar.I1, shape))
    if offset is None or mask is None:  # a rank-0 tensor: its one element, always inside
        offset = b.constant(0, BcTile(Scalar.I64, shape))
        mask = b.constant(True, BcTile(Scalar.I1, shape))
    ptrs = splat(b, addr.base, shape)
    return b.emit("offset", [ptrs.type], ptrs, offset), mask


def _sum(b: Builder, acc: Value | None, term: Value) -> Value:
    return term if acc is None else b.emit("addi", [term.type], acc, term)


def _scaled(b: Builder, idx: Value, stride: Value) -> Value:
    """idx * stride for an i64 index tile and an i32 stride."""
    t = idx.type
    assert isinstance(t, BcTile)
    step = splat(b, b.emit("exti", [I64_TILE], stride, signedness=Signedness.SIGNED), t.shape)
    return b.emit("muli", [t], idx, step)


def _axis_term(b: Builder, idx: Value, extent: Value, stride: Value) -> tuple[Value, Value]:
    """(where(inside, idx, 0) * stride, inside) for one axis's i64 index tile."""
    t = idx.type
    assert isinstance(t, BcTile)
    zero = b.constant(0, t)
    n = splat(b, b.emit("exti", [I64_TILE], extent, signedness=Signedness.SIGNED), t.shape)
    inside = b.emit("andi", [BcTile(Scalar.I1, t.shape)], _cmp(b, CmpPredicate.GE, idx, zero),
                    _cmp(b, CmpPredicate.LT, idx, n))
    safe = b.emit("select", [t], inside, idx, zero)
    return _scaled(b, safe, stride), inside


def _to_shape(b: Builder, v: Value, shape: tuple[int, ...]) -> Value:
    """A tile of rank len(shape) (or 0) with 1s or shape's extents, broadcast to `shape`."""
    t = v.type
    assert isinstance(t, BcTile)
    if t.shape == shape:
        return v
    if not t.shape:
        return splat(b, v, shape)
    return b.emit("broadcast", [BcTile(t.elem, shape)], v)


def masked_load(b: Builder, ptrs: Value, mask: Value, padding: float | int | bool,
                token: Value) -> tuple[Value, Value]:
    """(tile, token): the pointed-to elements, `padding` where the mask is off."""
    t = ptrs.type
    assert isinstance(t, BcTile) and isinstance(t.elem, PtrType)
    out = BcTile(t.elem.pointee, t.shape)
    tile, tok = b.op("load_ptr_tko", [out, TOKEN], ptrs, mask, b.constant(padding, out),
                     token).results
    return tile, tok


def masked_store(b: Builder, ptrs: Value, values: Value, mask: Value, token: Value) -> Value:
    """Writes `values` where the mask is on; returns the store's token."""
    return b.emit("store_ptr_tko", [TOKEN], ptrs, values, mask, token)
