"""Lowering accumulators (`acc_tile`, `acc_scatter`) to Tile IR atomic read-modify-writes.

Both forms become one `atomic_rmw_tko` on a tile of pointers: the Acc tensor's base pointer
offset by each element's index times the strides, masked where any index falls outside the
tensor (so no block can write past it, whatever the index). Indices, extents and strides are
widened to i64 first: an i64 index beyond 2**31 must be dropped, not wrap into range.

The ops are relaxed and device-scoped: nothing reads an Acc inside the launch, so no order
between them matters and they use the entry token. Float accumulation order is therefore
unspecified (docs/language.md says so). Kept in a module of its own, apart from the gathers'
pointer loads, so the two can share the pointer arithmetic later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bytecode.attrs import AtomicMode, CmpPredicate, MemoryOrdering, MemoryScope, Signedness
from ..bytecode.types import TOKEN, PtrType, Scalar, TensorViewType
from ..bytecode.types import TileType as BcTile
from ..dtypes import I64, DType
from ..types import TensorType, TileType
from . import arith
from .padding import _splat
from .types import LowerError, scalar

if TYPE_CHECKING:
    from ..bytecode import Builder, Value
    from ..ir import Op
    from .emit import _Lowerer

I64_TILE = BcTile(Scalar.I64)


@dataclass
class AccBase:
    """Where an Acc parameter's elements are: its base pointer, extents and strides (i64)."""

    dtype: DType
    base: Value  # a rank-0 tile<ptr<T>>
    extents: list[Value]
    strides: list[Value]


def atomic_mode(op: str, dtype: DType) -> AtomicMode:
    """The Tile IR RMW mode of an accumulator op on `dtype`."""
    if op == "add":
        return AtomicMode.ADDF if dtype.is_float else AtomicMode.ADD
    if op in ("max", "min"):
        if dtype.is_float:
            raise LowerError(f"atomic float {op} is two integer RMWs (float_extremum)")
        unsigned = dtype.kind == "uint"
        if op == "max":
            return AtomicMode.UMAX if unsigned else AtomicMode.MAX
        return AtomicMode.UMIN if unsigned else AtomicMode.MIN
    return {"or": AtomicMode.OR, "and": AtomicMode.AND, "xor": AtomicMode.XOR}[op]


def acc_base(L: _Lowerer, param: int) -> AccBase:
    """The base pointer, extents and strides of Acc parameter `param`, read in the prologue."""
    arg = L.abi.tensors[param]
    pos = next(i for i, s in enumerate(L.abi.slots) if s.arg == param and s.field == "ptr")
    base = L.fn.params[pos]
    view = arg.view
    assert isinstance(view, TensorViewType)
    pro = L.pro
    extents = [_wide(pro, e) for e in pro.op("get_tensor_shape", [BcTile(Scalar.I32)] * len(
        view.shape), L.views[param]).results]
    dynamic = iter(L.fn.params[i] for i, s in enumerate(L.abi.slots)
                   if s.arg == param and s.field == "stride")
    strides = [pro.constant(s, I64_TILE) if s is not None else _wide(pro, next(dynamic))
               for s in view.strides]
    return AccBase(arg.dtype, base, extents, strides)


def _wide(b: Builder, v: Value) -> Value:
    return b.emit("exti", [I64_TILE], v, signedness=Signedness.SIGNED)


def _index64(b: Builder, v: Value, dtype: DType) -> Value:
    t = v.type
    assert isinstance(t, BcTile)
    if scalar(dtype) == Scalar.I64:
        return v
    return arith.astype(b, v, dtype, I64)


def rmw(b: Builder, acc: AccBase, op: str, values: Value, indices: list[Value],
        token: Value) -> Value:
    """One masked atomic RMW of `values` at element `indices` (i64 tiles of the values' shape);
    returns the op's token."""
    vt = values.type
    assert isinstance(vt, BcTile)
    shape = vt.shape
    i64 = BcTile(Scalar.I64, shape)
    i1 = BcTile(Scalar.I1, shape)
    offset: Value | None = None
    mask: Value | None = None
    for idx, n, stride in zip(indices, acc.extents, acc.strides, strict=True):
        inside = b.emit("andi", [i1], _cmp(b, idx, b.constant(0, i64), CmpPredicate.GE),
                        _cmp(b, idx, _splat(b, n, i64), CmpPredicate.LT))
        mask = inside if mask is None else b.emit("andi", [i1], mask, inside)
        term = b.emit("muli", [i64], idx, _splat(b, stride, i64))
        offset = term if offset is None else b.emit("addi", [i64], offset, term)
    assert offset is not None and mask is not None
    ptr_t = BcTile(PtrType(scalar(acc.dtype)), shape)
    ptrs = b.emit("offset", [ptr_t], _splat(b, acc.base, ptr_t), offset)
    if op in ("max", "min") and acc.dtype.is_float:
        return _float_extremum(b, op, ptrs, values, mask, token)
    return _atomic(b, ptrs, values, mask, token, atomic_mode(op, acc.dtype))


def _atomic(b: Builder, ptrs: Value, values: Value, mask: Value, token: Value,
            mode: AtomicMode) -> Value:
    _, tok = b.op("atomic_rmw_tko", [values.type, TOKEN], ptrs, values, mask, token,
                  memory_ordering=MemoryOrdering.RELAXED, memory_scope=MemoryScope.DEVICE,
                  mode=mode).results
    return tok


def _float_extremum(b: Builder, op: str, ptrs: Value, values: Value, mask: Value,
                    token: Value) -> Value:
    """Float max/min as integer RMWs on the bits (Tile IR has no float max/min atomics).
    Non-negative floats order like their bits as signed ints, negative ones reversed as
    unsigned ints; so a value with its sign bit clear takes signed max (min), one with it set
    unsigned min (max), and each is right whatever sign the stored value has. NaN's result is
    unspecified."""
    vt = values.type
    assert isinstance(vt, BcTile) and isinstance(vt.elem, Scalar)
    bits_s = Scalar.I32 if vt.elem == Scalar.F32 else Scalar.I64
    bits_t = BcTile(bits_s, vt.shape)
    bits = b.emit("bitcast", [bits_t], values)
    i1 = BcTile(Scalar.I1, vt.shape)
    clear = _cmp(b, bits, b.constant(0, bits_t), CmpPredicate.GE)
    neg = b.emit("xori", [i1], clear, b.constant(True, i1))
    pt = BcTile(PtrType(bits_s), vt.shape)
    iptrs = b.emit("ptr_to_ptr", [pt], ptrs)
    signed, unsigned = (AtomicMode.MAX, AtomicMode.UMIN) if op == "max" else \
        (AtomicMode.MIN, AtomicMode.UMAX)
    t1 = _atomic(b, iptrs, bits, b.emit("andi", [i1], mask, clear), token, signed)
    t2 = _atomic(b, iptrs, bits, b.emit("andi", [i1], mask, neg), token, unsigned)
    return b.emit("join_tokens", [TOKEN], [t1, t2])


def _cmp(b: Builder, x: Value, y: Value, pred: CmpPredicate) -> Value:
    t = x.type
    assert isinstance(t, BcTile)
    return b.emit("cmpi", [BcTile(Scalar.I1, t.shape)], x, y, comparison_predicate=pred,
                  signedness=Signedness.SIGNED)


def tile_indices(b: Builder, index: list[Value], shape: tuple[int, ...]) -> list[Value]:
    """The element indices (i64, of `shape`) of the tile at tile coordinates `index` (i32)."""
    out = []
    rank = len(shape)
    full = BcTile(Scalar.I64, shape)
    for axis, n in enumerate(shape):
        row = BcTile(Scalar.I64, (n,))
        start = b.emit("muli", [I64_TILE], _wide(b, index[axis]), b.constant(n, I64_TILE))
        pos = b.emit("addi", [row], b.emit("iota", [row]), _splat(b, start, row))
        along = tuple(n if i == axis else 1 for i in range(rank))
        if along != (n,):
            pos = b.emit("reshape", [BcTile(Scalar.I64, along)], pos)
        if along != shape:
            pos = b.emit("broadcast", [full], pos)
        out.append(pos)
    return out


def lower_acc(L: _Lowerer, op: Op) -> None:
    """`acc_tile` (acc, tile, *index scalars) and `acc_scatter` (acc, values, *index tiles)."""
    acc_v, values, *idx = op.operands
    at = acc_v.type
    assert isinstance(at, TensorType) and at.acc is not None
    param = L._param_of(acc_v)
    if param not in L.accs:
        L.accs[param] = acc_base(L, param)
    acc = L.accs[param]
    tile = L.v(values)
    tt = tile.type
    assert isinstance(tt, BcTile)
    if op.name == "acc_tile":
        indices = tile_indices(L.b, L._index(idx), tt.shape)
    else:
        indices = []
        for x in idx:
            xt = x.type
            assert isinstance(xt, TileType)
            indices.append(_index64(L.b, L.v(x), xt.dtype))
    rmw(L.b, acc, str(op.attrs["op"]), tile, indices, L.entry_token)
