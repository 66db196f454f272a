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
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ...diagnostics import messages as msg
from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import F32, I32, I64, DType
from ..frontend.builder import Builder
from ..frontend.values import FValue
from ..lower import arith
from ..lower.types import OpCtx, scalar
from ..types import TileType, Type
from .defs import ir_op, numpy
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Builder as BcBuilder
    from ..bytecode import Value as BcValue

V = TypeVar("V")
ARITH = frozenset({"f16", "bf16", "f32", "f64"})  # float dtypes with arithmetic
MANTISSA = {"f32": 23, "f64": 52}


def power_of_ten(d: int) -> float:
    """10**|d| as a double, inf past the double range (NumPy's `round` then gives inf or NaN)."""
    return 10.0 ** abs(d) if abs(d) <= 308 else float("inf")


def _float_operand(b: Builder, c: Call, what: str, ints: bool) -> TileType:
    x = b.tile(c["x"], what)
    assert isinstance(x.type, TileType)
    d = x.type.dtype
    if d.is_float and d.name not in ARITH:
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
    if d.is_bool or (d.is_float and d.name not in ARITH):
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
def _wide(c: OpCtx) -> tuple[BcValue, DType, BcTile]:
    """The operand in the dtype the rounding works in (f32 for f16/bf16) and its type."""
    x, dtype = c.args[0], c.dtype()
    if dtype.bits < 32:
        x, dtype = arith.astype(c.b, x, dtype, F32), F32
    return x, dtype, BcTile(scalar(dtype), c.out.shape)


def _narrow(c: OpCtx, y: BcValue, work: DType) -> list[BcValue]:
    return [y if work == c.dtype() else arith.astype(c.b, y, work, c.dtype())]


class RintSteps(Generic[V]):
    """The operations `rint_formula` needs: the lowering emits them (`_EmitRint`), the tests
    evaluate them in NumPy (`NumpyRint`) to prove the formula on edge cases."""

    def const(self, value: float) -> V: raise NotImplementedError
    def abs(self, a: V) -> V: raise NotImplementedError
    def add(self, a: V, b: V) -> V: raise NotImplementedError
    def sub(self, a: V, b: V) -> V: raise NotImplementedError
    def with_sign_of(self, a: V, b: V) -> V: raise NotImplementedError  # a's bits | b's sign
    def select_lt(self, a: V, b: V, then: V, other: V) -> V: raise NotImplementedError


def rint_formula(s: RintSteps[V], x: V, mantissa: int) -> V:
    """x rounded to an integer, ties to even (see the module docstring)."""
    big = s.const(float(2 ** mantissa))
    a = s.abs(x)
    r = s.sub(s.add(a, big), big)
    return s.select_lt(a, big, s.with_sign_of(r, x), x)


class _EmitRint(RintSteps["BcValue"]):
    def __init__(self, b: BcBuilder, dtype: DType, t: BcTile) -> None:
        self.b, self.t = b, t
        self.ints = BcTile(scalar(I32 if dtype == F32 else I64), t.shape)
        self.sign_bit = -(2 ** (dtype.bits - 1))  # the sign bit as a signed integer

    def const(self, value: float) -> BcValue: return self.b.constant(value, self.t)
    def abs(self, a: BcValue) -> BcValue: return self.b.emit("absf", [self.t], a)
    def add(self, a: BcValue, b: BcValue) -> BcValue: return self.b.emit("addf", [self.t], a, b)
    def sub(self, a: BcValue, b: BcValue) -> BcValue: return self.b.emit("subf", [self.t], a, b)

    def with_sign_of(self, a: BcValue, b: BcValue) -> BcValue:
        bits = self.ints
        sign = self.b.emit("andi", [bits], self.b.emit("bitcast", [bits], b),
                           self.b.constant(self.sign_bit, bits))
        return self.b.emit("bitcast", [self.t], self.b.emit(
            "ori", [bits], self.b.emit("bitcast", [bits], a), sign))

    def select_lt(self, a: BcValue, b: BcValue, then: BcValue, other: BcValue) -> BcValue:
        lt = self.b.emit("cmpf", [BcTile(Scalar.I1, self.t.shape)], a, b,
                         comparison_predicate=CmpPredicate.LT,
                         comparison_ordering=CmpOrdering.ORDERED)
        return self.b.emit("select", [self.t], lt, then, other)


class NumpyRint(RintSteps[Any]):
    """The formula in NumPy, each add rounded to nearest even in the array's dtype (as the GPU's
    `add.rn`)."""

    def __init__(self, dtype: Any) -> None:
        self.np, self.dtype = numpy(), dtype

    def const(self, value: float) -> Any: return self.dtype.type(value)
    def abs(self, a: Any) -> Any: return self.np.abs(a)
    def add(self, a: Any, b: Any) -> Any: return (a + b).astype(self.dtype)
    def sub(self, a: Any, b: Any) -> Any: return (a - b).astype(self.dtype)

    def with_sign_of(self, a: Any, b: Any) -> Any:
        u = self.np.dtype(f"u{self.dtype.itemsize}")
        sign = b.view(u) & u.type(1 << (self.dtype.itemsize * 8 - 1))
        return (a.view(u) | sign).view(self.dtype)

    def select_lt(self, a: Any, b: Any, then: Any, other: Any) -> Any:
        return self.np.where(a < b, then, other)


def rint(b: BcBuilder, x: BcValue, dtype: DType, t: BcTile) -> BcValue:
    return rint_formula(_EmitRint(b, dtype, t), x, MANTISSA[dtype.name])


def _round_lower(c: OpCtx) -> list[BcValue]:
    x, work, t = _wide(c)
    d = c.attrs["decimals"]
    if d == 0:
        return _narrow(c, rint(c.b, x, work, t), work)
    scale = c.b.constant(power_of_ten(d), t)
    first, then = ("mulf", "divf") if d > 0 else ("divf", "mulf")
    y = rint(c.b, c.b.emit(first, [t], x, scale), work, t)
    return _narrow(c, c.b.emit(then, [t], y, scale), work)


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
