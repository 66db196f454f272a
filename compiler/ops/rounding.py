"""`ct.round(x, decimals=0)`, `ct.trunc(x)` and `ct.sign(x)`.

Tile IR has floor and ceil but no round-to-nearest-integer (its `ftoi` truncates; its `ftof`
only rounds between formats), so `round` is built from float adds: for |x| < 2**p (p the
mantissa width: 23 for f32, 52 for f64), |x| + 2**p lands in [2**p, 2**(p+1)), where the
spacing is 1, so the add itself rounds |x| to an integer, ties to even, and subtracting 2**p
again is exact. The sign is copied back from x's bits (so -0.4 gives -0.0, as NumPy), and
|x| >= 2**p (already an integer), infinities and NaN pass through unchanged. tileiras keeps
both adds (`add.rn.f32`, never contracted or folded). f16 and bf16 round in f32: every f16/bf16
value is exact there and so is the integer it rounds to.

`decimals` follows NumPy: `x * 10**d` rounded, then divided by `10**d` (`x / 10**-d` then
multiplied for negative `d`), each step rounded in x's dtype (f32 for f16/bf16), so the result
is the one NumPy gives for f32 and f64 and can differ from the decimal rounding of x by an ulp.
Integer tiles round to themselves (`decimals` >= 0), as in NumPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ...diagnostics import messages as msg
from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import ARITH_FLOATS, DType
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower import arith
from ..lower.types import OpCtx
from ..types import TileType, Type
from .composed import Emit, Steps, narrowed, widened
from .defs import ir_op, numpy
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Builder as BcBuilder
    from ..bytecode import Value as BcValue

V = TypeVar("V")
MANTISSA = {"f32": 23, "f64": 52}


def power_of_ten(d: int) -> float:
    """10**|d| as a double, inf past the double range (NumPy's `round` then gives inf or NaN)."""
    return 10.0 ** abs(d) if abs(d) <= 308 else float("inf")


def _float_operand(b: Builder, c: Call, what: str, ints: bool) -> TileType:
    x = b.tile(c["x"], what)
    assert isinstance(x.type, TileType)
    d = x.type.dtype
    if d.is_float and d.name not in ARITH_FLOATS:
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()",
               what=f"{d} tiles (convert with .astype(f32))")
    if not d.is_float and not (ints and d.is_integer):
        b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{what}()", what=f"{d} tiles")
    return x.type


@function("round", "x: Any, decimals: int = 0",
          "round to the nearest integer, ties to even (NumPy's and torch's round); "
          "`decimals` rounds to that many decimal places as NumPy does", "elementwise")
def _round(b: Builder, c: Call) -> FValue:
    t = _float_operand(b, c, "round", ints=True)
    decimals = b.static_int(c["decimals"], "decimals of round()")
    if t.dtype.is_integer:
        if decimals < 0:
            b.fail(msg.BAD_OPERAND, c["decimals"].span, op="round()",
                   what=f"negative decimals on {t.dtype} tiles (round integers with // and *)")
        return b.tile(c["x"], "round")
    return b.emit1("round", [b.tile(c["x"], "round")], t, c.span, decimals=decimals)


@function("trunc", "x: Any", "round toward zero (floats)", "elementwise")
def _trunc(b: Builder, c: Call) -> FValue:
    t = _float_operand(b, c, "trunc", ints=False)
    return b.emit1("trunc", [b.tile(c["x"], "trunc")], t, c.span)


@function("sign", "x: Any", "-1, 0 or 1 by the sign of `x` (NaN stays NaN; 0 for -0.0, as "
          "NumPy)", "elementwise")
def _sign(b: Builder, c: Call) -> FValue:
    x = b.tile(c["x"], "sign")
    assert isinstance(x.type, TileType)
    d = x.type.dtype
    if d.is_bool or (d.is_float and d.name not in ARITH_FLOATS):
        b.fail(msg.BAD_OPERAND, c["x"].span, op="sign()", what=f"{d} tiles")
    return b.emit1("sign", [x], x.type, c.span)


# -- interpreter ----------------------------------------------------------------------------------
def _work(x: Any) -> Any:
    """The dtype rounding works in: f32 for the narrow floats, as the lowering."""
    np = numpy()
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _round_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    np = numpy()
    x = _work(np.asarray(args[0]))
    d = attrs["decimals"]
    if d == 0:
        return [np.rint(x)]
    scale = x.dtype.type(power_of_ten(d))  # NumPy's 10**d, in x's dtype
    with np.errstate(over="ignore", invalid="ignore"):
        if d > 0:
            return [np.rint(x * scale) / scale]
        return [np.rint(x / scale) * scale]


def _trunc_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().trunc(args[0])]


def _sign_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    return [numpy().sign(args[0])]


# -- lowering -------------------------------------------------------------------------------------
def rint_formula(s: Steps[V], x: V, mantissa: int) -> V:
    """x rounded to an integer, ties to even (see the module docstring)."""
    big = s.const(float(2 ** mantissa))
    a = s.abs(x)
    r = s.sub(s.add(a, big), big)
    return s.select_lt(a, big, s.with_sign_of(r, x), x)


def rint(b: BcBuilder, x: BcValue, dtype: DType, t: BcTile) -> BcValue:
    return rint_formula(Emit(b, t), x, MANTISSA[dtype.name])


def _round_lower(c: OpCtx) -> list[BcValue]:
    x, work, t = widened(c)
    d = c.attrs["decimals"]
    if d == 0:
        return [narrowed(c, rint(c.b, x, work, t), work)]
    scale = c.b.constant(power_of_ten(d), t)
    first, then = ("mulf", "divf") if d > 0 else ("divf", "mulf")
    y = rint(c.b, c.b.emit(first, [t], x, scale), work, t)
    return [narrowed(c, c.b.emit(then, [t], y, scale), work)]


def _trunc_lower(c: OpCtx) -> list[BcValue]:
    """ceil below zero, floor above (-0.3 gives -0.0; NaN passes through floor)."""
    x, t = c.args[0], c.out
    neg = c.b.emit("cmpf", [BcTile(Scalar.I1, t.shape)], x, c.b.constant(0.0, t),
                   comparison_predicate=CmpPredicate.LT, comparison_ordering=CmpOrdering.ORDERED)
    return [c.b.emit("select", [t], neg, c.b.emit("ceil", [t], x), c.b.emit("floor", [t], x))]


def _sign_lower(c: OpCtx) -> list[BcValue]:
    x, t, dtype = c.args[0], c.out, c.dtype()
    i1 = BcTile(Scalar.I1, t.shape)
    zero = c.b.constant(0.0 if dtype.is_float else 0, t)
    gt = arith.compare(c.b, CmpPredicate.GT, x, zero, dtype)
    lt = arith.compare(c.b, CmpPredicate.LT, x, zero, dtype)
    one = c.b.constant(1.0 if dtype.is_float else 1, t)
    minus = c.b.constant(-1.0 if dtype.is_float else -1, t)
    y = c.b.emit("select", [t], gt, one, c.b.emit("select", [t], lt, minus, zero))
    if dtype.is_float:  # NaN stays NaN
        nan = c.b.emit("cmpf", [i1], x, x, comparison_predicate=CmpPredicate.NE,
                       comparison_ordering=CmpOrdering.UNORDERED)
        y = c.b.emit("select", [t], nan, x, y)
    return [y]


ir_op("round", _round_np, _round_lower)
ir_op("trunc", _trunc_np, _trunc_lower)
ir_op("sign", _sign_np, _sign_lower)
