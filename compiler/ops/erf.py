"""`ct.erf(x)`: the error function, on f16, bf16 and f32 tiles.

Tile IR has no erf, so the lowering composes it in f32 from fma, div and exp (f16/bf16 convert
to f32 and back). For |x| < 1 it is x * P(x**2) with the first twelve Taylor terms (truncation
below 1e-9); otherwise 1 - t * Q(t) * exp(-x**2) with t = 1 / (1 + 0.3275911 |x|), the five-term
rational form of Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7), with erf's sign. Measured
against math.erf on 2**20 points in [-6, 6] (`tests/ops/test_erf.py`), the f32 result is within
MAX_ERROR absolutely. The interpreter computes erf exactly (math.erf, rounded to the dtype), so
the GPU and the interpreter agree to MAX_ERROR. f64 tiles are rejected rather than given f32
accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import F32
from ..lower import arith
from ..lower.types import OpCtx
from .defs import numpy
from .elementwise import FLOAT, Elementwise, define_unary

if TYPE_CHECKING:
    from ..bytecode import Builder
    from ..bytecode import Value as BcValue

MAX_ERROR = 3e-7  # absolute, f32 (the measured maximum is below 2e-7)

# erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), as x * P(x^2)
TAYLOR = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
               for n in range(12))
AS_P = 0.3275911
AS_COEFFS = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)

V = TypeVar("V")


class Steps(Generic[V]):
    """The arithmetic the formula needs; the lowering emits it, the tests evaluate it in NumPy."""

    def const(self, value: float) -> V: raise NotImplementedError
    def mul(self, a: V, b: V) -> V: raise NotImplementedError
    def fma(self, a: V, b: V, c: V) -> V: raise NotImplementedError
    def div(self, a: V, b: V) -> V: raise NotImplementedError
    def exp(self, a: V) -> V: raise NotImplementedError
    def neg(self, a: V) -> V: raise NotImplementedError
    def abs(self, a: V) -> V: raise NotImplementedError
    def select_lt(self, a: V, b: V, then: V, other: V) -> V: raise NotImplementedError


def formula(s: Steps[V], x: V) -> V:
    one = s.const(1.0)
    # |x| < 1: x * P(x^2), Horner with fma
    sq = s.mul(x, x)
    p = s.const(TAYLOR[-1])
    for c in reversed(TAYLOR[:-1]):
        p = s.fma(p, sq, s.const(c))
    small = s.mul(x, p)
    # |x| >= 1: 1 - t Q(t) exp(-x^2), with erf's sign
    a = s.abs(x)
    t = s.div(one, s.fma(s.const(AS_P), a, one))
    q = s.const(AS_COEFFS[-1])
    for c in reversed(AS_COEFFS[:-1]):
        q = s.fma(q, t, s.const(c))
    q = s.mul(q, t)
    large = s.fma(s.neg(q), s.exp(s.neg(sq)), one)
    signed = s.select_lt(x, s.const(0.0), s.neg(large), large)
    return s.select_lt(a, one, small, signed)


class _Emit(Steps["BcValue"]):
    def __init__(self, b: Builder, t: BcTile) -> None:
        self.b, self.t = b, t

    def _op(self, name: str, *args: BcValue) -> BcValue:
        return self.b.emit(name, [self.t], *args)

    def const(self, value: float) -> BcValue: return self.b.constant(value, self.t)
    def mul(self, a: BcValue, b: BcValue) -> BcValue: return self._op("mulf", a, b)
    def fma(self, a: BcValue, b: BcValue, c: BcValue) -> BcValue: return self._op("fma", a, b, c)
    def div(self, a: BcValue, b: BcValue) -> BcValue: return self._op("divf", a, b)
    def exp(self, a: BcValue) -> BcValue: return self._op("exp", a)
    def neg(self, a: BcValue) -> BcValue: return self._op("negf", a)
    def abs(self, a: BcValue) -> BcValue: return self._op("absf", a)

    def select_lt(self, a: BcValue, b: BcValue, then: BcValue, other: BcValue) -> BcValue:
        lt = self.b.emit("cmpf", [BcTile(Scalar.I1, self.t.shape)], a, b,
                         comparison_predicate=CmpPredicate.LT,
                         comparison_ordering=CmpOrdering.ORDERED)
        return self._op("select", lt, then, other)


class Float32Steps(Steps[Any]):
    """The formula in NumPy float32, each step rounded as the device rounds it (fma once)."""

    def __init__(self) -> None:
        self.np = numpy()

    def _f(self, v: Any) -> Any:
        return self.np.asarray(v, dtype=self.np.float32)

    def const(self, value: float) -> Any: return self.np.float32(value)
    def mul(self, a: Any, b: Any) -> Any: return self._f(a * b)
    def fma(self, a: Any, b: Any, c: Any) -> Any:
        f64 = self.np.float64
        return self._f(f64(a) * f64(b) + f64(c))
    def div(self, a: Any, b: Any) -> Any: return self._f(a / b)
    def exp(self, a: Any) -> Any: return self._f(self.np.exp(a))
    def neg(self, a: Any) -> Any: return self._f(-a)
    def abs(self, a: Any) -> Any: return self._f(self.np.abs(a))
    def select_lt(self, a: Any, b: Any, then: Any, other: Any) -> Any:
        return self._f(self.np.where(a < b, then, other))


def _lower(c: OpCtx) -> BcValue:
    x, dtype = c.args[0], c.dtype()
    out = c.out
    wide = BcTile(Scalar.F32, out.shape)
    if dtype != F32:
        x = arith.astype(c.b, x, dtype, F32)
    y = formula(_Emit(c.b, wide), x)
    return y if dtype == F32 else arith.astype(c.b, y, F32, dtype)


def _exact(x: Any) -> Any:
    np = numpy()
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


_np: Callable[..., Any] = _exact
ERF = define_unary(Elementwise(
    "erf", FLOAT, "erf", math.erf, np=_np, lower=_lower,
    dtypes=frozenset({"f16", "bf16", "f32"}),
    why=" (erf is computed to f32 accuracy; convert with .astype(f32))",
    doc="the error function (f16/bf16/f32; GPU within 3e-7 of exact)"))
