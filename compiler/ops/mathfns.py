"""Math functions beyond the basic set (the audit against Triton's and cuTile Python's op lists,
docs/language.md "Not (yet) in cutile" lists what is left out):

- one Tile IR op each: `ct.tan`, `ct.sinh`, `ct.cosh`, `ct.atan2`, `ct.umulhi` (`mulhii`),
  `ct.pow` (the function form of `**`, in elementwise.py) and `ct.fma` (one rounding);
- composed: `ct.sigmoid`, `ct.log1p`, `ct.expm1` (from exp and log, accurate near 0),
  `ct.clamp` (max then min: NaN propagates, as torch.clamp and NumPy's clip), `ct.isnan`,
  `ct.isinf`, `ct.isfinite` (bool tiles).

The composed functions compute f16 and bf16 in f32 and round once at the end, so they are as
accurate as the f32 ones. The interpreter evaluates them exactly (NumPy in float64, rounded to
the dtype); the GPU's exp and log are within 2 ulp, so the GPU agrees to a few ulp.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from ...diagnostics import messages as msg
from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..bytecode.types import TileType as BcTile
from ..dtypes import ARITH_FLOATS, BOOL
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue
from ..lower.table import Rule
from ..lower.types import OpCtx
from ..types import TileType, Type
from .composed import Steps, lowering
from .defs import ir_op, numpy
from .elementwise import FLOAT, INT, Elementwise, binary, check_kind, define_binary, define_unary
from .registry import Call, function

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

V = TypeVar("V")
UNSIGNED = frozenset({"u8", "u16", "u32", "u64"})
_WHY = " (convert with .astype(f32))"

# -- one Tile IR op each ----------------------------------------------------------------------
for _name, _np, _doc in (("tan", "tan", "tangent"), ("sinh", "sinh", "hyperbolic sine"),
                         ("cosh", "cosh", "hyperbolic cosine")):
    define_unary(Elementwise(_name, FLOAT, _name, getattr(math, _name), np=_np,
                             lower=Rule(_name), doc=_doc))

define_binary(Elementwise(
    "atan2", FLOAT, "take atan2 of", math.atan2, np="arctan2", lower=Rule("atan2"),
    doc="the angle of the point (y, x) in radians, atan(x / y) in the right quadrant "
        "(NumPy's arctan2(x, y))"))


def _umulhi_np(x: Any, y: Any) -> Any:
    """The high half of the unsigned double-width product (64-bit in 32-bit pieces)."""
    np = numpy()
    bits = x.dtype.itemsize * 8
    if bits < 64:
        wide = x.astype(np.uint64) * y.astype(np.uint64)
        return (wide >> np.uint64(bits)).astype(x.dtype)
    lo32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    x0, x1, y0, y1 = x & lo32, x >> s32, y & lo32, y >> s32
    p00, p01, p10, p11 = x0 * y0, x0 * y1, x1 * y0, x1 * y1
    mid = (p00 >> s32) + (p01 & lo32) + (p10 & lo32)
    return p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)


define_binary(Elementwise(
    "umulhi", INT, "take umulhi of", None, np=_umulhi_np, lower=Rule(int_op="mulhii"),
    dtypes=UNSIGNED, why=" (the high half of an unsigned product: .bitcast() a signed tile to "
                         "the unsigned type of its width first)",
    doc="the high half of the double-width product of unsigned integers (Triton's umulhi)"))


# -- fma ----------------------------------------------------------------------------------------
def _fma_rule(b: Builder, c: Call) -> FValue:
    x, y, z = b.unify("fma", [c["x"], c["y"], c["z"]], c.span)
    assert isinstance(x.type, TileType)
    check_kind(b, FMA, x.type.dtype, c.span, c["x"])
    return b.emit1("fma", [x, y, z], x.type, c.span)


def _fma_np(args: Sequence[Any], attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    """x * y + z rounded once. Narrower than f64: the product is exact in float64 and the sum
    is rounded to odd there (TwoSum), so the runtime's rounding to the dtype is the correct
    one. f64: exact rationals, element by element."""
    np = numpy()
    x, y, z = (np.asarray(a) for a in args)
    if x.dtype == np.float64:
        return [np.vectorize(_fma64, otypes=[np.float64])(x, y, z)]
    p = x.astype(np.float64) * y.astype(np.float64)
    zz = z.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + zz
        bb = s - p
        err = (p - (s - bb)) + (zz - bb)
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        nudge = np.isfinite(s) & even & ((err > 0) | (err < 0))
        toward = np.where(err > 0, np.inf, -np.inf)
        return [np.where(nudge, np.nextafter(s, toward), s)]


def _fma64(x: float, y: float, z: float) -> float:
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return z if math.isfinite(x) and math.isfinite(y) else x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        return x * y + z  # the sign of an exact zero, as IEEE's fma gives it
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)


def _fma_lower(c: OpCtx) -> list[BcValue]:
    return [c.b.emit("fma", [c.out], *c.args)]


FMA = Elementwise("fma", FLOAT, "fma", None, dtypes=ARITH_FLOATS, why=_WHY)
ir_op("fma", _fma_np, _fma_lower)
function("fma", "x: Any, y: Any, z: Any", "x * y + z rounded once (a fused multiply-add)",
         "elementwise")(_fma_rule)


# -- clamp --------------------------------------------------------------------------------------
@function("clamp", "x: Any, lo: Any, hi: Any", "`x` limited to [lo, hi]: minimum(maximum(x, lo), "
          "hi) (NaN propagates; `lo`/`hi` may be tiles or literals)", "elementwise")
def _clamp(b: Builder, c: Call) -> FValue:
    low = binary(b, "maximum", c["x"], c["lo"], c.span)
    return binary(b, "minimum", Arg(low, c.span), c["hi"], c.span)


# -- composed in f32 (f16/bf16) or the dtype (f32/f64) ----------------------------------------
def sigmoid_formula(s: Steps[V], x: V) -> V:
    one = s.const(1.0)
    return s.div(one, s.add(one, s.exp(s.neg(x))))


def log1p_formula(s: Steps[V], x: V) -> V:
    """log(u) * x / (u - 1) with u = 1 + x (Goldberg): the rounding error of u cancels. u == 1
    gives x itself, +inf gives +inf."""
    one = s.const(1.0)
    u = s.add(one, x)
    y = s.mul(s.log(u), s.div(x, s.sub(u, one)))
    y = s.select_eq(u, one, x, y)
    return s.select_eq(x, s.const(math.inf), x, y)


def expm1_formula(s: Steps[V], x: V) -> V:
    """(u - 1) * x / log(u) with u = exp(x) (Kahan): u == 1 gives x, u - 1 == -1 gives -1,
    u == +inf gives +inf."""
    u = s.exp(x)
    um1 = s.sub(u, s.const(1.0))
    y = s.mul(um1, s.div(x, s.log(u)))
    y = s.select_eq(u, s.const(1.0), x, y)
    y = s.select_eq(um1, s.const(-1.0), um1, y)
    return s.select_eq(u, s.const(math.inf), u, y)


def _exact(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A NumPy function evaluated in float64 (the runtime rounds the result to the dtype)."""
    def run(x: Any) -> Any:
        np = numpy()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return fn(np.asarray(x, dtype=np.float64))
    return run


define_unary(Elementwise(
    "sigmoid", FLOAT, "sigmoid", lambda v: 1.0 / (1.0 + math.exp(-v)) if v > -700 else 0.0,
    np=_exact(lambda v: 1.0 / (1.0 + numpy().exp(-v))), lower=lowering(sigmoid_formula),
    dtypes=ARITH_FLOATS, why=_WHY, doc="1 / (1 + exp(-x))"))
define_unary(Elementwise(
    "log1p", FLOAT, "log1p", math.log1p, np=_exact(lambda v: numpy().log1p(v)),
    lower=lowering(log1p_formula), dtypes=ARITH_FLOATS, why=_WHY,
    doc="log(1 + x), accurate for small x"))
define_unary(Elementwise(
    "expm1", FLOAT, "expm1", math.expm1, np=_exact(lambda v: numpy().expm1(v)),
    lower=lowering(expm1_formula), dtypes=ARITH_FLOATS, why=_WHY,
    doc="exp(x) - 1, accurate for small x"))


# -- classification: bool tiles -----------------------------------------------------------------
CLASSES: dict[str, tuple[str, bool]] = {  # name: (NumPy function, the answer for integers)
    "isnan": ("isnan", False), "isinf": ("isinf", False), "isfinite": ("isfinite", True)}
CLASS_DOCS = {"isnan": "true where `x` is NaN (a bool tile)",
              "isinf": "true where `x` is +inf or -inf (a bool tile)",
              "isfinite": "true where `x` is neither NaN nor infinite (a bool tile)"}


def _class_rule(name: str) -> Callable[[Builder, Call], FValue]:
    def rule(b: Builder, c: Call) -> FValue:
        x = b.tile(c["x"], name)
        assert isinstance(x.type, TileType)
        out = TileType(BOOL, x.type.shape)
        if not x.type.dtype.is_float:  # integers are always finite, as in NumPy
            const = b.emit1("constant", [], TileType(BOOL, ()), c.span,
                            value=CLASSES[name][1])
            return b.broadcast(const, x.type.shape, c.span)
        if x.type.dtype.storage_only or x.type.dtype.name not in ARITH_FLOATS:
            b.fail(msg.BAD_OPERAND, c["x"].span, op=f"{name}()",
                   what=f"{x.type.dtype} tiles{_WHY}")
        return b.emit1(name, [x], out, c.span)
    return rule


def _class_lower(name: str) -> Callable[[OpCtx], list[BcValue]]:
    def lower(c: OpCtx) -> list[BcValue]:
        x = c.args[0]
        t = x.type
        assert isinstance(t, BcTile)
        if name == "isnan":
            return [c.b.emit("cmpf", [c.out], x, x, comparison_predicate=CmpPredicate.NE,
                             comparison_ordering=CmpOrdering.UNORDERED)]
        pred = CmpPredicate.EQ if name == "isinf" else CmpPredicate.LT
        return [c.b.emit("cmpf", [c.out], c.b.emit("absf", [t], x), c.b.constant(math.inf, t),
                         comparison_predicate=pred, comparison_ordering=CmpOrdering.ORDERED)]
    return lower


def _class_np(fn: str) -> Callable[[Sequence[Any], dict[str, Any], Sequence[Type]], list[Any]]:
    return lambda args, attrs, outs: [getattr(numpy(), fn)(args[0])]


for _name, (_fn, _) in CLASSES.items():
    ir_op(_name, _class_np(_fn), _class_lower(_name))
    function(_name, "x: Any", CLASS_DOCS[_name], "elementwise")(_class_rule(_name))

