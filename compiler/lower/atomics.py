"""Lowering accumulators (`acc_tile`, `acc_scatter`) to Tile IR atomics.

A whole tile whose op and dtype a view reduction takes is one `atomic_red_view_tko` on the
Acc's partition view (a TMA reduction on sm_90), skipped when the tile index is outside the
tensor's tiles. The rest (scatters, f64 add, float max/min) is one `atomic_rmw_tko` on a tile
of pointers: the Acc tensor's base pointer offset by each element's index times the strides,
masked where any index falls outside the tensor (so no block can write past it, whatever the
index). Indices, extents and strides are widened to i64 first: an i64 index beyond 2**31 must
be dropped, not wrap into range.

The ops are relaxed and device-scoped: nothing reads an Acc inside the launch, so no order
between them matters and they use the entry token. Float accumulation order is therefore
unspecified (docs/language.md says so). Kept in a module of its own, apart from the gathers'
pointer loads; the pointer arithmetic and the in-bounds mask are theirs (`pointers.py`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..bytecode.attrs import AtomicMode, CmpPredicate, MemoryOrdering, MemoryScope, Signedness
from ..bytecode.types import TOKEN, PtrType, Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import I64, DType
from ..types import TensorType, TileType
from .padding import along, run_from
from .pointers import TensorAddress, element_pointers
from .types import I64_TILE, LowerError

if TYPE_CHECKING:
    from ..bytecode import Builder, Value
    from ..ir import Op
    from ..ir import Value as IrValue
    from .context import LowerCtx



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


def _wide(b: Builder, v: Value) -> Value:
    return b.emit("exti", [I64_TILE], v, signedness=Signedness.SIGNED)


def rmw(b: Builder, addr: TensorAddress, dtype: DType, op: str, values: Value,
        indices: list[tuple[Value, DType]], token: Value) -> Value:
    """One masked atomic RMW of `values` at element `indices` (integer tiles broadcastable to
    the values' shape); returns the op's token."""
    vt = values.type
    assert isinstance(vt, BcTile)
    ptrs, mask = element_pointers(b, addr, indices, vt.shape)
    if op in ("max", "min") and dtype.is_float:
        return _float_extremum(b, op, _flat(b, ptrs), _flat(b, values), _flat(b, mask), token)
    return _atomic(b, ptrs, values, mask, token, atomic_mode(op, dtype))


def _flat(b: Builder, v: Value) -> Value:
    """`v` as a rank-1 tile, for float max/min: tileiras 13.4 crashes (SIGILL) on their pair
    of RMWs over f64 bits of a reshaped rank-2 tile of 512+ elements. Only there: other RMWs
    keep their tile's layout (no shuffle before the atomics)."""
    t = v.type
    assert isinstance(t, BcTile)
    if len(t.shape) < 2:
        return v
    return b.emit("reshape", [BcTile(t.elem, (math.prod(t.shape),))], v)


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
    for axis, n in enumerate(shape):
        start = b.emit("muli", [I64_TILE], _wide(b, index[axis]), b.constant(n, I64_TILE))
        out.append(along(b, run_from(b, start, n), axis, shape))
    return out


def lower_acc(L: LowerCtx, op: Op) -> None:
    """`acc_tile` (acc, tile, *index scalars) and `acc_scatter` (acc, values, *index tiles)."""
    acc_v, values, *idx = op.operands
    at = acc_v.type
    assert isinstance(at, TensorType) and at.acc is not None
    acc_op = str(op.attrs["op"])
    tile = L.v(values)
    tt = tile.type
    assert isinstance(tt, BcTile)
    if op.name == "acc_tile" and _by_view(acc_op, at.dtype):
        _reduce_tile(L, acc_v, tile, idx, atomic_mode(acc_op, at.dtype))
        return
    indices: list[tuple[Value, DType]] = []
    if op.name == "acc_tile":
        indices = [(i, I64) for i in tile_indices(L.b, L.index(idx), tt.shape)]
    else:
        for x in idx:
            xt = x.type
            assert isinstance(xt, TileType)
            indices.append((L.v(x), xt.dtype))
    rmw(L.b, L.address(L.param_of(acc_v)), at.dtype, acc_op, tile, indices, L.entry_token)


def _by_view(op: str, dtype: DType) -> bool:
    """Whether `acc.<op>(tile, index)` is one view reduction (tileiras 13.4 makes it a TMA
    reduction on sm_90 where the tile is wide enough: one bulk operation, no pointer per
    element): every op on 32/64-bit integers, `add` on f16/bf16/f32. The rest (f64 add, float
    max/min) takes `rmw`."""
    if dtype.is_integer:
        return dtype.bits >= 32
    return op == "add" and dtype.name in ("f16", "bf16", "f32")


def _reduce_tile(L: LowerCtx, acc_v: IrValue, tile: Value, idx: list[IrValue],
                 mode: AtomicMode) -> None:
    """`atomic_red_view_tko` of the tile at tile index `idx` of the Acc's partition view. A
    tile index outside the tensor's tiles (negative, or past the end, however large) skips
    the reduction; a tile at the edge is clipped by the view."""
    tt = tile.type
    assert isinstance(tt, BcTile)
    safe, inside = L.tile_inside(acc_v, L.index(idx), tt.shape)
    pv = L.pview(L.param_of(acc_v), tt.shape, None)  # no padding value: tileiras requires it
    b = L.b
    branch = b.op("if", [TOKEN], inside, regions=[[], []])
    with b.at(branch.regions[0]):
        tok = b.emit("atomic_red_view_tko", [TOKEN], pv, safe, tile, L.entry_token,
                     memory_ordering=MemoryOrdering.RELAXED, memory_scope=MemoryScope.DEVICE,
                     mode=mode)
        b.op("yield", [], [tok])
    with b.at(branch.regions[1]):
        b.op("yield", [], [L.entry_token])
