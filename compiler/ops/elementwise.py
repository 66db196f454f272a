"""Elementwise arithmetic, comparisons, math functions, where and astype.

Each `Elementwise` entry is the whole definition of one op: the dtype kinds it accepts, its
compile-time folding on Python numbers, its NumPy meaning and its Tile IR lowering (one opcode per
dtype family, or a composed sequence from `lower/arith.py`)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...diagnostics import messages as msg
from ...diagnostics.diagnostic import Span
from ..bytecode.attrs import CmpOrdering, CmpPredicate
from ..dtypes import BOOL, DType, arithmetic_refusal
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, const_of, const_value
from ..lower import arith
from ..lower.table import Rule
from ..lower.types import OpCtx
from ..types import ConstType, SymInt, TileType, Type, describe
from .defs import ir_op, numpy
from .registry import Call, function, method
from .registry import Rule as TypingRule

if TYPE_CHECKING:
    from ..bytecode import Value as BcValue

Composite = Callable[[OpCtx], "BcValue"]


@dataclass(frozen=True)
class Elementwise:
    """An elementwise op: which dtype kinds it accepts, its Python/NumPy meaning and lowering."""

    name: str  # IR op name
    kinds: frozenset[str]  # accepted dtype kinds: float, int, uint, bool
    word: str  # for messages: "add", "compare"
    fold: Callable[..., object] | None = None  # compile-time folding on Python numbers
    compare: bool = False
    np: str | Callable[..., Any] = ""  # NumPy ufunc name, or a function of the operand arrays
    lower: Rule | Composite = field(default_factory=Rule)
    doc: str = ""
    symbol: str = ""  # the Python operator, for the docs ("+"); empty for functions
    dtypes: frozenset[str] = frozenset()  # if given, only these dtypes (names)
    why: str = ""  # the hint when a dtype outside `dtypes` is given


def _exp2_np(x: Any) -> Any:
    """2**x as the GPU's f32 ex2 gives it: results below 2**-126 (subnormal) are 0 (bf16,
    computed in f32 here, likewise)."""
    np = numpy()
    out = np.exp2(x)
    if out.dtype == np.float32:
        out = np.where(np.abs(out) < np.float32(2.0**-126), np.float32(0), out)
    return out


NUM = frozenset({"float", "int", "uint"})
INT = frozenset({"int", "uint"})
INTB = frozenset({"int", "uint", "bool"})
FLOAT = frozenset({"float"})
ANY = frozenset({"float", "int", "uint", "bool"})


def _cmp(pred: CmpPredicate) -> Rule:
    # `ne` is unordered so that NaN != NaN is true, as in NumPy; the others are ordered.
    order = CmpOrdering.UNORDERED if pred is CmpPredicate.NE else CmpOrdering.ORDERED
    return Rule("cmpf", "cmpi", True,
                {"comparison_predicate": pred, "comparison_ordering": order},
                {"comparison_predicate": pred})


_NAN: dict[str, object] = {"propagate_nan": True}  # NumPy's maximum/minimum propagate NaN


def _nan_wins(pick: Callable[[float, float], float]) -> Callable[[float, float], float]:
    """Folding as NumPy's maximum/minimum: Python's max(1.0, nan) is 1.0, NumPy's is nan."""
    return lambda a, b: a if a != a else b if b != b else pick(a, b)


def _invert_np(x: Any) -> Any:
    np = numpy()
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


def _floordiv(c: OpCtx) -> BcValue:
    return arith.floordiv(c.b, c.args[0], c.args[1], c.dtype())


def _mod(c: OpCtx) -> BcValue:
    return arith.mod(c.b, c.args[0], c.args[1], c.dtype())


def _shl(c: OpCtx) -> BcValue:
    return arith.shift(c.b, c.args[0], c.args[1], c.dtype(), left=True)


def _shr(c: OpCtx) -> BcValue:
    return arith.shift(c.b, c.args[0], c.args[1], c.dtype(), left=False)


def _invert(c: OpCtx) -> BcValue:
    return arith.invert(c.b, c.args[0], c.dtype())


BINARY: dict[str, Elementwise] = {e.name: e for e in [
    Elementwise("add", NUM, "add", operator.add, np="add", lower=Rule("addf", "addi"),
                symbol="+", doc="addition"),
    Elementwise("sub", NUM, "subtract", operator.sub, np="subtract",
                lower=Rule("subf", "subi"), symbol="-", doc="subtraction"),
    Elementwise("mul", NUM, "multiply", operator.mul, np="multiply",
                lower=Rule("mulf", "muli"), symbol="*", doc="multiplication"),
    Elementwise("div", FLOAT, "divide", operator.truediv, np="true_divide",
                lower=Rule("divf"), symbol="/", doc="true division (floats)"),
    Elementwise("floordiv", NUM, "floor-divide", operator.floordiv, np="floor_divide",
                lower=_floordiv, symbol="//", doc="floor division, as NumPy's: the floor of the "
                "exact quotient (`1.0 // 0.1 == 9.0`), `x // 0 == 0` for ints"),
    Elementwise("mod", NUM, "take the remainder of", operator.mod, np="mod", lower=_mod,
                symbol="%", doc="remainder with the divisor's sign, as Python (`x % 0 == 0` for "
                "ints)"),
    Elementwise("pow", FLOAT, "raise", operator.pow, np="power", lower=Rule("pow"),
                symbol="**", doc="power (floats)"),
    Elementwise("and", INTB, "and", operator.and_, np="bitwise_and", lower=Rule(int_op="andi"),
                symbol="&", doc="bitwise and (ints, bools; `and` on bool tiles too)"),
    Elementwise("or", INTB, "or", operator.or_, np="bitwise_or", lower=Rule(int_op="ori"),
                symbol="|", doc="bitwise or (ints, bools; `or` on bool tiles too)"),
    Elementwise("xor", INTB, "xor", operator.xor, np="bitwise_xor", lower=Rule(int_op="xori"),
                symbol="^", doc="bitwise xor (ints, bools)"),
    Elementwise("shl", INT, "shift", operator.lshift, np="left_shift", lower=_shl,
                symbol="<<", doc="shift left (ints); by the width or more: 0"),
    Elementwise("shr", INT, "shift", operator.rshift, np="right_shift", lower=_shr,
                symbol=">>", doc="shift right, arithmetic for signed ints; by the width or "
                "more: 0, or -1 for a negative signed int"),
    Elementwise("maximum", NUM, "take the maximum of", _nan_wins(max), np="maximum",
                lower=Rule("maxf", "maxi", True, _NAN), doc="elementwise maximum (NaN wins)"),
    Elementwise("minimum", NUM, "take the minimum of", _nan_wins(min), np="minimum",
                lower=Rule("minf", "mini", True, _NAN), doc="elementwise minimum (NaN wins)"),
    Elementwise("eq", ANY, "compare", operator.eq, True, np="equal",
                lower=_cmp(CmpPredicate.EQ), symbol="==", doc="equal (a bool tile)"),
    Elementwise("ne", ANY, "compare", operator.ne, True, np="not_equal",
                lower=_cmp(CmpPredicate.NE), symbol="!=", doc="not equal (NaN != NaN)"),
    Elementwise("lt", NUM, "compare", operator.lt, True, np="less",
                lower=_cmp(CmpPredicate.LT), symbol="<", doc="less than"),
    Elementwise("le", NUM, "compare", operator.le, True, np="less_equal",
                lower=_cmp(CmpPredicate.LE), symbol="<=", doc="less or equal"),
    Elementwise("gt", NUM, "compare", operator.gt, True, np="greater",
                lower=_cmp(CmpPredicate.GT), symbol=">", doc="greater than"),
    Elementwise("ge", NUM, "compare", operator.ge, True, np="greater_equal",
                lower=_cmp(CmpPredicate.GE), symbol=">=", doc="greater or equal"),
]}

UNARY: dict[str, Elementwise] = {e.name: e for e in [
    Elementwise("neg", NUM, "negate", operator.neg, np="negative", lower=Rule("negf", "negi"),
                symbol="-x", doc="negation"),
    Elementwise("invert", INTB, "invert", operator.invert, np=_invert_np, lower=_invert,
                symbol="~x", doc="bitwise not (ints), logical not (bools)"),
    Elementwise("not", frozenset({"bool"}), "not", operator.not_, np="logical_not",
                lower=_invert, symbol="not x", doc="logical not of a bool tile"),
    Elementwise("abs", NUM, "take abs of", abs, np="abs", lower=Rule("absf", "absi"),
                doc="absolute value"),
    Elementwise("exp", FLOAT, "exp", math.exp, np="exp", lower=Rule("exp"), doc="e**x"),
    # the hardware ex2 flushes subnormals; keeping them costs 3 instructions per element, for
    # results below 2**-126 only (softmax and attention are dominated by this op)
    Elementwise("exp2", FLOAT, "exp2", lambda x: 2.0 ** x, np=lambda x: _exp2_np(x),
                lower=Rule("exp2", f32_attrs={"flush_to_zero": True}),
                doc="2**x (f32 flushes subnormal results to zero)"),
    Elementwise("log", FLOAT, "log", math.log, np="log", lower=Rule("log"),
                doc="natural logarithm"),
    Elementwise("log2", FLOAT, "log2", math.log2, np="log2", lower=Rule("log2"),
                doc="base-2 logarithm"),
    Elementwise("sqrt", FLOAT, "sqrt", math.sqrt, np="sqrt", lower=Rule("sqrt"),
                doc="square root"),
    Elementwise("rsqrt", FLOAT, "rsqrt", lambda x: 1.0 / math.sqrt(x),
                np=lambda x: 1 / numpy().sqrt(x), lower=Rule("rsqrt"), doc="1 / sqrt(x)"),
    Elementwise("sin", FLOAT, "sin", math.sin, np="sin", lower=Rule("sin"), doc="sine"),
    Elementwise("cos", FLOAT, "cos", math.cos, np="cos", lower=Rule("cos"), doc="cosine"),
    Elementwise("tanh", FLOAT, "tanh", math.tanh, np="tanh", lower=Rule("tanh"),
                doc="hyperbolic tangent"),
    Elementwise("floor", FLOAT, "floor", math.floor, np="floor", lower=Rule("floor"),
                doc="round toward -inf"),
    Elementwise("ceil", FLOAT, "ceil", math.ceil, np="ceil", lower=Rule("ceil"),
                doc="round toward +inf"),
]}


def _np_fn(e: Elementwise) -> Callable[..., Any]:
    if isinstance(e.np, str):
        ufunc = e.np
        return lambda *a: getattr(numpy(), ufunc)(*a)
    return e.np


def _interp(e: Elementwise) -> Callable[[Any, dict[str, Any], Any], list[Any]]:
    fn = _np_fn(e)
    return lambda args, attrs, outs: [fn(*args)]


def _lowering(e: Elementwise) -> Callable[[OpCtx], list[BcValue]]:
    low = e.lower
    if isinstance(low, Rule):
        rule = low
        return lambda c: [arith.apply_rule(c.b, rule, e.name, c.dtype(), c.out, *c.args)]
    composite = low
    return lambda c: [composite(c)]


for _e in [*BINARY.values(), *UNARY.values()]:
    ir_op(_e.name, _interp(_e), _lowering(_e))


def _select_np(args: Any, attrs: dict[str, Any], outs: Any) -> list[Any]:
    return [numpy().where(*args)]


def _select_lower(c: OpCtx) -> list[BcValue]:
    return [c.b.emit("select", [c.out], *c.args)]


F8_NAN_CODES = frozenset({"f8e4m3", "f8e5m2"})  # formats with several NaN codes


def _astype_np(args: Any, attrs: dict[str, Any], outs: Sequence[Type]) -> list[Any]:
    # the runtime converts and rounds every result to its dtype; a NaN converted from an f8
    # format loses the code the interpreter keeps with it (a conversion gives the canonical
    # NaN, only bitcasts keep codes)
    src = attrs.get("src")
    if src is not None and src.name in F8_NAN_CODES:
        np = numpy()
        return [np.where(np.isnan(args[0]), np.float32(np.nan), args[0])]
    return [args[0]]


def _astype_lower(c: OpCtx) -> list[BcValue]:
    return [arith.astype(c.b, c.args[0], c.dtype(), c.out_dtype)]


ir_op("select", _select_np, _select_lower)
ir_op("astype", _astype_np, _astype_lower)

SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "div": "/"}


def binary(b: Builder, name: str, lhs: Arg, rhs: Arg, span: Span) -> FValue:
    spec = BINARY[name]
    if name in ("eq", "ne"):  # dtypes and strings compare at compile time
        cx, cy = const_of(b.known(lhs)), const_of(b.known(rhs))
        if isinstance(cx, (DType, str)) or isinstance(cy, (DType, str)):
            if isinstance(cx, SymInt) or isinstance(cy, SymInt):
                return const_value(span, SymInt(f"{name}({cx}, {cy})"), "bool")
            return const_value(span, (cx == cy) == (name == "eq"))
    x, y = b.tile_or_const(lhs, spec.word), b.tile_or_const(rhs, spec.word)
    if isinstance(x.type, ConstType) and isinstance(y.type, ConstType):
        return _fold(b, spec, x.const, y.const, span, rhs)
    a, c = b.unify(spec.word, [lhs, rhs], span)
    assert isinstance(a.type, TileType)
    check_kind(b, spec, a.type.dtype, span, lhs if isinstance(x.type, TileType) else rhs)
    if isinstance(y.type, ConstType):
        _check_literal_operand(b, spec, a.type.dtype, y.const, rhs)
    out = TileType(BOOL if spec.compare else a.type.dtype, a.type.shape)
    return b.emit1(name, [a, c], out, span)


def _check_literal_operand(b: Builder, spec: Elementwise, dtype: DType, value: object,
                           rhs: Arg) -> None:
    """CT211 for a literal (or Const) right operand that has no result on integer tiles: a zero
    divisor, a shift by the width or more or by a negative amount (the run-time rule for such
    values, docs/language.md, is NumPy's: 0, or the sign)."""
    if not dtype.is_integer or not isinstance(value, int) or isinstance(value, bool):
        return
    if spec.name in ("floordiv", "mod") and value == 0:
        b.fail(msg.BAD_OPERAND, rhs.span, op=f"'{spec.symbol}'",
               what=f"a divisor of 0 on {dtype} tiles (integer division by zero)")
    bits = dtype.bits
    if spec.name in ("shl", "shr") and not 0 <= value < bits:
        b.fail(msg.BAD_OPERAND, rhs.span, op=f"'{spec.symbol}'",
               what=f"a shift by {value} on {dtype} tiles (shifts of {dtype} take 0 to "
                    f"{bits - 1})")


def _fold(b: Builder, spec: Elementwise, x: object, y: object, span: Span, rhs: Arg) -> FValue:
    if isinstance(x, SymInt) or isinstance(y, SymInt):
        # Known at specialization: the kind follows what the folded value will be.
        kind = "bool" if spec.compare else "float" if spec.name == "div" or any(
            isinstance(v, float) for v in (x, y)) else "int"
        if spec.name in SYMBOLS:
            return const_value(span, SymInt(f"{x}{SYMBOLS[spec.name]}{y}"), kind)
        return const_value(span, SymInt(f"{spec.name}({x}, {y})"), kind)
    if spec.fold is None or not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        b.fail(msg.BAD_OPERAND, span, op=spec.word, what="these constants")
    try:
        _check_size(spec.name, x, y)
        return const_value(span, spec.fold(x, y))  # type: ignore[arg-type]
    except (ZeroDivisionError, OverflowError, ValueError, TypeError) as err:  # 1 << 0.5
        b.fail(msg.BAD_OPERAND, rhs.span, op=spec.word, what=f"this constant ({_why(err)})")


FOLD_BITS = 4096  # far beyond any dtype; folding `10 ** 30 ** 31` would never finish


def _check_size(name: str, x: float, y: float) -> None:
    """OverflowError when an exact integer result would need more than FOLD_BITS bits."""
    if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool):
        return
    if name == "pow" and abs(x) > 1 and y > 0 and y * x.bit_length() > FOLD_BITS:
        raise OverflowError
    if name == "shl" and x != 0 and y > FOLD_BITS:
        raise OverflowError
    if name == "mul" and x.bit_length() + y.bit_length() > FOLD_BITS:
        raise OverflowError


def _why(err: Exception) -> str:
    if isinstance(err, ZeroDivisionError):
        return "division by zero"
    if isinstance(err, OverflowError):
        return "the result is too large"
    return str(err)


def check_kind(b: Builder, spec: Elementwise, dtype: DType, span: Span, where: Arg) -> None:
    refusal = arithmetic_refusal(dtype)
    if refusal is not None:
        b.fail(msg.BAD_OPERAND, where.span, op=f"'{spec.word}'",
               what=f"{dtype} tiles ({refusal}: .astype(f32) first)")
    if spec.dtypes and dtype.kind in spec.kinds and dtype.name not in spec.dtypes:
        b.fail(msg.BAD_OPERAND, where.span, op=f"'{spec.word}'", what=f"{dtype} tiles{spec.why}")
    if dtype.kind not in spec.kinds:
        hint = ""
        if spec.name == "div" and dtype.is_integer:
            hint = " (use // for integer division, or .astype() to a float dtype)"
        b.fail(msg.BAD_OPERAND, where.span, op=f"'{spec.word}'",
               what=f"{dtype} tiles{hint}")


def unary(b: Builder, name: str, arg: Arg, span: Span) -> FValue:
    spec = UNARY[name]
    x = b.tile_or_const(arg, spec.word)
    if isinstance(x.type, ConstType) and isinstance(x.const, SymInt):
        # A Const behaves like a literal: the result is known at specialization.
        shown = {"neg": "-({})", "invert": "~({})", "not": "not ({})"}.get(name, name + "({})")
        kind = "float" if spec.kinds == FLOAT else x.type.kind
        return const_value(span, SymInt(shown.format(x.const)), kind)
    if isinstance(x.type, ConstType):
        if spec.fold is None or not isinstance(x.const, (int, float)):
            b.fail(msg.BAD_OPERAND, arg.span, op=spec.word, what=describe(x.type))
        try:
            return const_value(span, spec.fold(x.const))  # type: ignore[arg-type]
        except (ZeroDivisionError, OverflowError, ValueError) as err:
            b.fail(msg.BAD_OPERAND, arg.span, op=spec.word, what=f"this constant ({_why(err)})")
    assert isinstance(x.type, TileType)
    check_kind(b, spec, x.type.dtype, span, arg)
    return b.emit1(name, [x], x.type, span)


def _unary_rule(name: str) -> TypingRule:
    return lambda b, c: unary(b, name, c["x"], c.span)


def define_unary(e: Elementwise) -> Elementwise:
    """Registers a unary elementwise op defined in another module: `ct.NAME(x)`, its typing,
    folding, NumPy meaning and lowering all come from the entry."""
    UNARY[e.name] = e
    ir_op(e.name, _interp(e), _lowering(e))
    function(e.name, "x: Any", e.doc, "elementwise")(_unary_rule(e.name))
    return e


def _binary_rule(name: str) -> TypingRule:
    return lambda b, c: binary(b, name, c["x"], c["y"], c.span)


def define_binary(e: Elementwise) -> Elementwise:
    """Registers a binary elementwise op defined in another module: `ct.NAME(x, y)` (operands
    broadcast, literals adopt the tile's dtype), its folding, NumPy meaning and lowering."""
    BINARY[e.name] = e
    ir_op(e.name, _interp(e), _lowering(e))
    function(e.name, "x: Any, y: Any", e.doc, "elementwise")(_binary_rule(e.name))
    return e


for _name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "abs", "floor",
              "ceil"):
    function(_name, "x: Any", UNARY[_name].doc, "elementwise")(_unary_rule(_name))
for _name in ("maximum", "minimum"):
    function(_name, "x: Any, y: Any", BINARY[_name].doc, "elementwise")(_binary_rule(_name))
function("pow", "x: Any, y: Any", "`x ** y` (floats)", "elementwise")(_binary_rule("pow"))


@function("where", "cond: Any, x: Any, y: Any", "`x` where `cond` is true, else `y` (literals "
          "allowed)", "elementwise")
def _where(b: Builder, c: Call) -> FValue:
    cond = b.tile_or_const(c["cond"], "where")
    if isinstance(cond.type, TileType) and cond.type.dtype != BOOL:
        b.fail(msg.BAD_OPERAND, c["cond"].span, op="where", what=f"a {cond.type.dtype} condition "
               "(compare to get a bool tile)")
    x, y = b.tile_or_const(c["x"], "where"), b.tile_or_const(c["y"], "where")
    if isinstance(x.type, TileType) and isinstance(y.type, TileType) and \
            x.type.dtype != y.type.dtype:
        b.fail(msg.WHERE_DTYPES, c["y"].span, a=x.type.dtype, b=y.type.dtype)
    xs, ys = b.unify("select", [c["x"], c["y"]], c.span)
    assert isinstance(xs.type, TileType)
    cond_tile = b.tile(c["cond"], "where")
    assert isinstance(cond_tile.type, TileType)
    shape = b.broadcast_shapes(cond_tile.type.shape, xs.type.shape)
    if shape is None:
        b.fail(msg.NOT_BROADCASTABLE, c.span, op="select", a=cond_tile.type.shape,
               b=xs.type.shape)
    parts = [b.broadcast(v, shape, c.span) for v in (cond_tile, xs, ys)]
    return b.emit1("select", parts, TileType(xs.type.dtype, shape), c.span)


@method("tile", "astype", "dtype: Any", "convert to `dtype` (float -> int truncates toward zero "
        "and saturates at the int's range; NaN gives 0)", "elementwise")
def _astype(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "astype")
    dtype = b.dtype(c["dtype"], "the dtype of astype()")
    assert isinstance(x.type, TileType)
    if x.type.dtype == dtype:
        return x
    return b.emit1("astype", [x], TileType(dtype, x.type.shape), c.span, dtype=dtype,
                   src=x.type.dtype)


@function("cdiv", "a: Any, b: Any", "ceil(a / b) of ints or integer scalars (`-(-a // b)`)",
          "elementwise")
def _cdiv(b: Builder, c: Call) -> FValue:
    for name in ("a", "b"):
        v = b.tile_or_const(c[name], "cdiv")
        t = v.type
        if isinstance(t, TileType) and not t.dtype.is_integer:
            b.fail(msg.BAD_OPERAND, c[name].span, op="cdiv", what=describe(t))
        if isinstance(t, ConstType) and t.kind != "int":
            b.fail(msg.BAD_OPERAND, c[name].span, op="cdiv", what=f"the {t.kind} {v.const}")
    zero = Arg(const_value(c.span, 0), c.span)
    neg = binary(b, "sub", zero, c["a"], c.span)
    floor = binary(b, "floordiv", Arg(neg, c.span), c["b"], c.span)
    return binary(b, "sub", zero, Arg(floor, c.span), c.span)
