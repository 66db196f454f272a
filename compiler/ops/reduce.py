"""Reductions and scans, over one combining op each (add, mul, max, min, xor).

`ct.sum/prod/max/min/xor_sum(x, axis=None, keepdims=False)` reduce along one axis, or over the
whole tile without `axis` (a 0-d result; with keepdims, all ones: NumPy's and Triton's habit);
`ct.scan(x, axis, op, reverse=False)` gives running results (inclusive), with `ct.cumsum` and
`ct.cumprod` as its names for add and mul. f16/bf16 sums and products accumulate in f32
(interpreter and lowering alike); sums and products of ints narrower than 32 bits and of bools
are 32-bit (`accumulated`); max and min are exact in any width and keep the dtype, and max/min
(reductions and scans) propagate NaN, as NumPy's reduce and accumulate do. A whole-tile
reduction is a reshape to one axis and one Tile IR reduce."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..bytecode.types import TileType as BcTile
from ..dtypes import I32, U32, DType, arithmetic_refusal, integer_range
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower import arith
from ..lower.types import OpCtx
from ..types import Shape, TileType, Type
from .defs import ir_op, numpy, out_tile
from .registry import Call, Rule, function
from .shape import norm_axis

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue


@dataclass(frozen=True)
class Combiner:
    name: str  # as `ct.scan`'s `op` names it
    ops: tuple[str, str]  # Tile IR body op: float, int
    identity: Callable[[DType], float | int]
    ufunc: str  # NumPy ufunc (its reduce / accumulate)
    widen: bool  # f16/bf16 accumulate in f32, narrow ints and bools in 32 bits
    ints_only: bool = False  # a bitwise op (xor)


def _extreme(which: int, inf: float) -> Callable[[DType], float | int]:
    return lambda d: inf if d.is_float else integer_range(d)[which]


COMBINERS: dict[str, Combiner] = {c.name: c for c in [
    Combiner("add", ("addf", "addi"), lambda d: 0, "add", True),
    Combiner("mul", ("mulf", "muli"), lambda d: 1, "multiply", True),
    Combiner("max", ("maxf", "maxi"), _extreme(0, float("-inf")), "maximum", False),
    Combiner("min", ("minf", "mini"), _extreme(1, float("inf")), "minimum", False),
    Combiner("xor", ("", "xori"), lambda d: 0, "bitwise_xor", False, True),
]}
REDUCTIONS = {"sum": "add", "prod": "mul", "max": "max", "min": "min", "xor_sum": "xor"}
SCAN_NAMES = {"cumsum": "add", "cumprod": "mul"}


def accumulated(dtype: DType, comb: Combiner) -> DType:
    """The dtype of a reduction's or scan's result: sums and products of ints narrower than 32
    bits are 32-bit with the same signedness (Triton's tl.sum: an i8 row of 128 ones sums to
    128, not -128), and of bools i32 (a count); the rest keep the operand's dtype."""
    if comb.widen and (dtype.is_bool or (dtype.is_integer and dtype.bits < 32)):
        return U32 if dtype.kind == "uint" else I32
    return dtype


def _operand(b: Builder, c: Call, what: str, whole: bool = False,
             bools: bool = False) -> TileType:
    """The tile reduced or scanned; `whole`: over all its axes (a 0-d tile is fine then);
    `bools`: bool tiles are accepted (sums and products count in i32)."""
    x = b.tile(c["x"], what)
    assert isinstance(x.type, TileType)
    if x.type.rank == 0 and not whole:
        b.fail(msg.RANK_NEEDED, c["x"].span, what=f"{what}()", want="1 or more", shape="()")
    if x.type.dtype.is_bool and not bools:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()", what="bool tiles (use .astype())")
    refusal = arithmetic_refusal(x.type.dtype)
    if refusal is not None:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()",
               what=f"{x.type.dtype} tiles ({refusal}: .astype(f32) first)")
    return x.type


def _flag(b: Builder, c: Call, name: str, what: str) -> bool:
    flag = b.static_const(c[name], f"{name} of {what}()")
    if not isinstance(flag, bool):
        b.fail(msg.NOT_CONSTANT, c[name].span, what=f"{name} of {what}() (a bool)")
    return flag


def reduced_shape(b: Builder, c: Call, t: TileType, what: str) -> tuple[int | None, bool, Shape]:
    """The axis reduced (None: all of them), keepdims and the result's shape."""
    keep = _flag(b, c, "keepdims", what)
    if b.is_none(c["axis"]):
        return None, keep, (1,) * t.rank if keep else ()
    axis = norm_axis(b, c["axis"], t.rank, f"the axis of {what}()")
    shape = list(t.shape)
    if keep:
        shape[axis] = 1
    else:
        del shape[axis]
    return axis, keep, tuple(shape)


def _reduce(b: Builder, c: Call, kind: str) -> FValue:
    comb = COMBINERS[REDUCTIONS[kind]]
    t = _operand(b, c, kind, whole=b.is_none(c["axis"]), bools=comb.widen)
    if comb.ints_only and not t.dtype.is_integer:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{kind}()", what=f"{t.dtype} tiles "
               "(a bitwise reduction of integers)")
    axis, keep, shape = reduced_shape(b, c, t, kind)
    return b.emit1("reduce", [b.tile(c["x"], kind)], TileType(accumulated(t.dtype, comb), shape),
                   c.span, kind=kind, axis=axis, keepdims=keep)


def _scan(b: Builder, c: Call, what: str, op: str | None) -> FValue:
    if op is None:
        given = b.static_const(c["op"], "the op of scan()")
        if not isinstance(given, str) or given not in COMBINERS or COMBINERS[given].ints_only:
            b.fail(msg.BAD_OPERAND, c["op"].span, op="scan()",
                   what=f"the op {given!r} (use 'add', 'mul', 'max' or 'min')")
        op = given
    comb = COMBINERS[op]
    t = _operand(b, c, what, bools=comb.widen)
    axis = norm_axis(b, c["axis"], t.rank, f"the axis of {what}()")
    reverse = _flag(b, c, "reverse", what)
    return b.emit1("scan", [b.tile(c["x"], what)], TileType(accumulated(t.dtype, comb), t.shape),
                   c.span, kind=op, axis=axis, reverse=reverse)


def _reduce_rule(kind: str) -> Rule:
    return lambda b, c: _reduce(b, c, kind)


def _scan_rule(name: str, op: str | None) -> Rule:
    return lambda b, c: _scan(b, c, name, op)


REDUCTION_DOCS = {
    "sum": "sum along `axis`, or of the whole tile (a 0-d tile) without it; f16/bf16 "
           "accumulate in f32; i8/i16 and bools sum to i32, u8/u16 to u32",
    "prod": "product along `axis`, or of the whole tile without it; f16/bf16 accumulate in "
            "f32; i8/i16 and bools give i32, u8/u16 u32",
    "max": "largest element along `axis`, or of the whole tile without it (NaN wins)",
    "min": "smallest element along `axis`, or of the whole tile without it (NaN wins)",
    "xor_sum": "bitwise xor of the integers along `axis`, or of the whole tile without it",
}
for _name in REDUCTIONS:
    function(_name, "x: Any, axis: int | None = None, keepdims: bool = False",
             REDUCTION_DOCS[_name], "reductions")(_reduce_rule(_name))
function("scan", "x: Any, axis: int, op: str, reverse: bool = False",
         "running (inclusive) add, mul, max or min along `axis`; `reverse` runs from the end; "
         "add and mul widen as `ct.sum` does",
         "reductions")(_scan_rule("scan", None))
for _name, _op in SCAN_NAMES.items():
    function(_name, "x: Any, axis: int, reverse: bool = False",
             f"`ct.scan(x, axis, '{_op}', reverse)`", "reductions")(_scan_rule(_name, _op))


# -- interpreter and lowering of the IR ops these rules emit ------------------------------------
def _wide(x: Any, widen: bool, outs: Sequence[Type]) -> Any:
    """The operand in the dtype the op accumulates in: f16 in f32, narrow ints and bools in
    the result's 32 bits (wrapping there, as the GPU's adds do)."""
    np = numpy()
    x = np.asarray(x)
    if widen and x.dtype == np.float16:
        return x.astype(np.float32)
    out = out_tile(outs).dtype
    return x.astype(out.numpy_name) if out.is_integer and x.dtype != out.numpy_name else x


def _reduce_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    comb = COMBINERS[REDUCTIONS[attrs["kind"]]]
    ufunc = getattr(numpy(), comb.ufunc)
    x = _wide(args[0], comb.widen, outs)
    return [ufunc.reduce(x, axis=attrs["axis"], keepdims=attrs["keepdims"])]


def _scan_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    comb = COMBINERS[attrs["kind"]]
    axis = attrs["axis"]
    x = _wide(args[0], comb.widen, outs)
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = getattr(np, comb.ufunc).accumulate(x, axis=axis)
    return [np.flip(out, axis) if attrs["reverse"] else out]


def _nan(comb: Combiner) -> dict[str, object]:
    """maxf/minf without `propagate_nan` treat NaN as missing (C's fmax); NumPy's reduce and
    accumulate let NaN win, so the interpreter and the GPU agree only with the flag."""
    return {"propagate_nan": True} if comb.name in ("max", "min") else {}


def flattened(c: OpCtx) -> tuple[BcValue, int]:
    """The operand and the axis to reduce: a whole-tile reduction (axis None) reduces the tile
    reshaped to one axis (row-major, so argmax's index is the flat one)."""
    x, axis = c.args[0], c.attrs["axis"]
    if axis is not None:
        return x, axis
    xt = x.type
    assert isinstance(xt, BcTile)
    n = math.prod(xt.shape)
    if xt.shape != (n,):
        x = c.b.emit("reshape", [BcTile(xt.elem, (n,))], x)
    return x, 0


def _reduce_lower(c: OpCtx) -> list[BcValue]:
    comb = COMBINERS[REDUCTIONS[c.attrs["kind"]]]
    x, axis = flattened(c)
    return [arith.reduce(c.b, x, axis, c.dtype(), c.out, ops=comb.ops,
                         identity=comb.identity(c.out_dtype), widen=comb.widen,
                         result=c.out_dtype, body_attrs=_nan(comb))]


def _scan_lower(c: OpCtx) -> list[BcValue]:
    comb = COMBINERS[c.attrs["kind"]]
    return [arith.reduce(c.b, c.args[0], c.attrs["axis"], c.dtype(), c.out, ops=comb.ops,
                         identity=comb.identity(c.out_dtype), widen=comb.widen, scan=True,
                         reverse=c.attrs["reverse"], result=c.out_dtype,
                         body_attrs=_nan(comb))]


ir_op("reduce", _reduce_np, _reduce_lower)
ir_op("scan", _scan_np, _scan_lower)
