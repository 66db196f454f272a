"""The arithmetic of the functions Tile IR has no op for (erf.py; sigmoid, log1p and expm1 in
mathfns.py; round in rounding.py): each is a formula over the steps of `Steps`, which the
lowering emits as Tile IR (`Emit`) and the tests evaluate in NumPy (`NumpySteps`, each step
rounded to the dtype) to measure the formula's accuracy. f16 and bf16 compute in f32 and round
once at the end (`widened`, `narrowed`): every f16/bf16 value is exact in f32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import F32, DType
from ..lower import arith
from ..lower.types import OpCtx, scalar
from .defs import numpy

if TYPE_CHECKING:
    from ..bytecode import Builder
    from ..bytecode import Value as BcValue

V = TypeVar("V")


class Steps(Generic[V]):
    """The arithmetic the formulas are written in."""

    def const(self, value: float) -> V: raise NotImplementedError
    def add(self, a: V, b: V) -> V: raise NotImplementedError
    def sub(self, a: V, b: V) -> V: raise NotImplementedError
    def mul(self, a: V, b: V) -> V: raise NotImplementedError
    def div(self, a: V, b: V) -> V: raise NotImplementedError
    def fma(self, a: V, b: V, c: V) -> V: raise NotImplementedError
    def neg(self, a: V) -> V: raise NotImplementedError
    def abs(self, a: V) -> V: raise NotImplementedError
    def exp(self, a: V) -> V: raise NotImplementedError
    def log(self, a: V) -> V: raise NotImplementedError
    def with_sign_of(self, a: V, b: V) -> V: raise NotImplementedError  # a's bits | b's sign
    def select_eq(self, a: V, b: V, then: V, other: V) -> V: raise NotImplementedError
    def select_lt(self, a: V, b: V, then: V, other: V) -> V: raise NotImplementedError


Formula = Callable[[Steps[Any], Any], Any]


class Emit(Steps["BcValue"]):
    """The steps as Tile IR ops on tiles of type `t` (f32 or f64)."""

    def __init__(self, b: Builder, t: BcTile) -> None:
        self.b, self.t = b, t

    def _op(self, name: str, *args: BcValue) -> BcValue:
        return self.b.emit(name, [self.t], *args)

    def const(self, value: float) -> BcValue: return self.b.constant(value, self.t)
    def add(self, a: BcValue, b: BcValue) -> BcValue: return self._op("addf", a, b)
    def sub(self, a: BcValue, b: BcValue) -> BcValue: return self._op("subf", a, b)
    def mul(self, a: BcValue, b: BcValue) -> BcValue: return self._op("mulf", a, b)
    def div(self, a: BcValue, b: BcValue) -> BcValue: return self._op("divf", a, b)
    def fma(self, a: BcValue, b: BcValue, c: BcValue) -> BcValue: return self._op("fma", a, b, c)
    def neg(self, a: BcValue) -> BcValue: return self._op("negf", a)
    def abs(self, a: BcValue) -> BcValue: return self._op("absf", a)
    def exp(self, a: BcValue) -> BcValue: return self._op("exp", a)
    def log(self, a: BcValue) -> BcValue: return self._op("log", a)

    def with_sign_of(self, a: BcValue, b: BcValue) -> BcValue:
        elem = self.t.elem
        assert isinstance(elem, Scalar)
        bits = BcTile(Scalar.I32 if elem is Scalar.F32 else Scalar.I64, self.t.shape)
        sign_bit = -(2 ** (elem.bits - 1))  # the sign bit as a signed integer
        sign = self.b.emit("andi", [bits], self.b.emit("bitcast", [bits], b),
                           self.b.constant(sign_bit, bits))
        return self.b.emit("bitcast", [self.t], self.b.emit(
            "ori", [bits], self.b.emit("bitcast", [bits], a), sign))

    def _select(self, pred: CmpPredicate, a: BcValue, b: BcValue, then: BcValue,
                other: BcValue) -> BcValue:
        cond = self.b.emit("cmpf", [BcTile(Scalar.I1, self.t.shape)], a, b,
                           comparison_predicate=pred, comparison_ordering=CmpOrdering.ORDERED)
        return self._op("select", cond, then, other)

    def select_eq(self, a: BcValue, b: BcValue, then: BcValue, other: BcValue) -> BcValue:
        return self._select(CmpPredicate.EQ, a, b, then, other)

    def select_lt(self, a: BcValue, b: BcValue, then: BcValue, other: BcValue) -> BcValue:
        return self._select(CmpPredicate.LT, a, b, then, other)


class NumpySteps(Steps[Any]):
    """The steps in NumPy, each rounded to `dtype` (float32: as the GPU's f32 ops, with NumPy's
    exp and log standing in for the GPU's; fma: the float64 sum of the exact product)."""

    def __init__(self, dtype: Any) -> None:
        self.np, self.dtype = numpy(), dtype

    def _r(self, v: Any) -> Any:
        return self.np.asarray(v).astype(self.dtype)

    def const(self, value: float) -> Any: return self.dtype.type(value)
    def add(self, a: Any, b: Any) -> Any: return self._r(a + b)
    def sub(self, a: Any, b: Any) -> Any: return self._r(a - b)
    def mul(self, a: Any, b: Any) -> Any: return self._r(a * b)
    def div(self, a: Any, b: Any) -> Any: return self._r(a / b)
    def neg(self, a: Any) -> Any: return self._r(-a)
    def abs(self, a: Any) -> Any: return self._r(self.np.abs(a))
    def exp(self, a: Any) -> Any: return self._r(self.np.exp(a))
    def log(self, a: Any) -> Any: return self._r(self.np.log(a))

    def fma(self, a: Any, b: Any, c: Any) -> Any:
        f64 = self.np.float64
        return self._r(f64(a) * f64(b) + f64(c))

    def with_sign_of(self, a: Any, b: Any) -> Any:
        u = self.np.dtype(f"u{self.dtype.itemsize}")
        sign = b.view(u) & u.type(1 << (self.dtype.itemsize * 8 - 1))
        return (a.view(u) | sign).view(self.dtype)

    def select_eq(self, a: Any, b: Any, then: Any, other: Any) -> Any:
        return self._r(self.np.where(a == b, then, other))

    def select_lt(self, a: Any, b: Any, then: Any, other: Any) -> Any:
        return self._r(self.np.where(a < b, then, other))


def widened(c: OpCtx) -> tuple[BcValue, DType, BcTile]:
    """The operand in the dtype a formula computes in (f32 for f16/bf16), that dtype and the
    tile type of its values."""
    x, dtype = c.args[0], c.dtype()
    if dtype.bits < 32:
        x, dtype = arith.astype(c.b, x, dtype, F32), F32
    return x, dtype, BcTile(scalar(dtype), c.out.shape)


def narrowed(c: OpCtx, y: BcValue, work: DType) -> BcValue:
    """A result computed in `work` in the op's own dtype."""
    return y if work == c.dtype() else arith.astype(c.b, y, work, c.dtype())


def lowering(formula: Formula) -> Callable[[OpCtx], BcValue]:
    """The lowering of a one-operand op that is `formula` of its operand."""
    def lower(c: OpCtx) -> BcValue:
        x, work, t = widened(c)
        return narrowed(c, formula(Emit(c.b, t), x), work)
    return lower
