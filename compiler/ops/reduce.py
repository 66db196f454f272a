"""Reductions and scans along one axis, over one combining op each (add, mul, max, min).

`ct.sum/prod/max/min(x, axis, keepdims=False)` reduce; `ct.scan(x, axis, op, reverse=False)`
gives running results (inclusive), with `ct.cumsum` and `ct.cumprod` as its names for add and
mul. f16/bf16 sums and products accumulate in f32 (interpreter and lowering alike); max and min
are exact in any width, and max/min (reductions and scans) propagate NaN, as NumPy's reduce and
accumulate do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ..dtypes import DType, integer_range
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower import arith
from ..lower.types import OpCtx
from ..types import TileType, Type
from .defs import ir_op, numpy
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
    widen: bool  # f16/bf16 accumulate in f32


def _extreme(which: int, inf: float) -> Callable[[DType], float | int]:
    return lambda d: inf if d.is_float else integer_range(d)[which]


COMBINERS: dict[str, Combiner] = {c.name: c for c in [
    Combiner("add", ("addf", "addi"), lambda d: 0, "add", True),
    Combiner("mul", ("mulf", "muli"), lambda d: 1, "multiply", True),
    Combiner("max", ("maxf", "maxi"), _extreme(0, float("-inf")), "maximum", False),
    Combiner("min", ("minf", "mini"), _extreme(1, float("inf")), "minimum", False),
]}
REDUCTIONS = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}
SCAN_NAMES = {"cumsum": "add", "cumprod": "mul"}


def _operand(b: Builder, c: Call, what: str) -> TileType:
    x = b.tile(c["x"], what)
    assert isinstance(x.type, TileType)
    if x.type.rank == 0:
        b.fail(msg.RANK_NEEDED, c["x"].span, what=f"{what}()", want="1 or more", shape="()")
    if x.type.dtype.is_bool:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()", what="bool tiles (use .astype())")
    if x.type.dtype.storage_only:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()",
               what=f"{x.type.dtype} tiles (a storage format: .astype(f32) first)")
    return x.type


def _flag(b: Builder, c: Call, name: str, what: str) -> bool:
    flag = b.static_const(c[name], f"{name} of {what}()")
    if not isinstance(flag, bool):
        b.fail(msg.NOT_CONSTANT, c[name].span, what=f"{name} of {what}() (a bool)")
    return flag


def _reduce(b: Builder, c: Call, kind: str) -> FValue:
    t = _operand(b, c, kind)
    axis = norm_axis(b, c["axis"], t.rank, f"the axis of {kind}()")
    keep = _flag(b, c, "keepdims", kind)
    shape = list(t.shape)
    if keep:
        shape[axis] = 1
    else:
        del shape[axis]
    return b.emit1("reduce", [b.tile(c["x"], kind)], TileType(t.dtype, tuple(shape)), c.span,
                   kind=kind, axis=axis, keepdims=keep)


def _scan(b: Builder, c: Call, what: str, op: str | None) -> FValue:
    t = _operand(b, c, what)
    axis = norm_axis(b, c["axis"], t.rank, f"the axis of {what}()")
    if op is None:
        given = b.static_const(c["op"], "the op of scan()")
        if not isinstance(given, str) or given not in COMBINERS:
            b.fail(msg.BAD_OPERAND, c["op"].span, op="scan()",
                   what=f"the op {given!r} (use 'add', 'mul', 'max' or 'min')")
        op = given
    reverse = _flag(b, c, "reverse", what)
    return b.emit1("scan", [b.tile(c["x"], what)], t, c.span, kind=op, axis=axis,
                   reverse=reverse)


def _reduce_rule(kind: str) -> Rule:
    return lambda b, c: _reduce(b, c, kind)


def _scan_rule(name: str, op: str | None) -> Rule:
    return lambda b, c: _scan(b, c, name, op)


for _name in REDUCTIONS:
    function(_name, "x: Any, axis: int, keepdims: bool = False",
             f"{_name} along `axis` (f16/bf16 accumulate in f32)", "reductions")(
                 _reduce_rule(_name))
function("scan", "x: Any, axis: int, op: str, reverse: bool = False",
         "running (inclusive) add, mul, max or min along `axis`; `reverse` runs from the end",
         "reductions")(_scan_rule("scan", None))
for _name, _op in SCAN_NAMES.items():
    function(_name, "x: Any, axis: int, reverse: bool = False",
             f"`ct.scan(x, axis, '{_op}', reverse)`", "reductions")(_scan_rule(_name, _op))


# -- interpreter and lowering of the IR ops these rules emit ------------------------------------
def _wide(x: Any, widen: bool) -> Any:
    np = numpy()
    return x.astype(np.float32) if widen and x.dtype == np.float16 else x


def _reduce_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    comb = COMBINERS[REDUCTIONS[attrs["kind"]]]
    ufunc = getattr(numpy(), comb.ufunc)
    return [ufunc.reduce(_wide(args[0], comb.widen), axis=attrs["axis"],
                         keepdims=attrs["keepdims"])]


def _scan_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    comb = COMBINERS[attrs["kind"]]
    axis = attrs["axis"]
    x = _wide(args[0], comb.widen)
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = getattr(np, comb.ufunc).accumulate(x, axis=axis)
    return [np.flip(out, axis) if attrs["reverse"] else out]


def _nan(comb: Combiner) -> dict[str, object]:
    """maxf/minf without `propagate_nan` treat NaN as missing (C's fmax); NumPy's reduce and
    accumulate let NaN win, so the interpreter and the GPU agree only with the flag."""
    return {"propagate_nan": True} if comb.name in ("max", "min") else {}


def _reduce_lower(c: OpCtx) -> list[BcValue]:
    comb = COMBINERS[REDUCTIONS[c.attrs["kind"]]]
    return [arith.reduce(c.b, c.args[0], c.attrs["axis"], c.dtype(), c.out, ops=comb.ops,
                         identity=comb.identity(c.dtype()), widen=comb.widen,
                         body_attrs=_nan(comb))]


def _scan_lower(c: OpCtx) -> list[BcValue]:
    comb = COMBINERS[c.attrs["kind"]]
    return [arith.reduce(c.b, c.args[0], c.attrs["axis"], c.dtype(), c.out, ops=comb.ops,
                         identity=comb.identity(c.dtype()), widen=comb.widen, scan=True,
                         reverse=c.attrs["reverse"], body_attrs=_nan(comb))]


ir_op("reduce", _reduce_np, _reduce_lower)
ir_op("scan", _scan_np, _scan_lower)
