"""Elementwise arithmetic, comparisons, math functions, where and astype."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

from .. import messages as msg
from ..diagnostics import Span
from ..dtypes import BOOL, DType
from ..frontend.builder import Arg, Builder
from ..frontend.values import FValue, const_of, const_value
from ..types import ConstType, SymInt, TileType, describe
from .registry import Call, Rule, function, method


@dataclass(frozen=True)
class Elementwise:
    """An elementwise IR op: which dtype kinds it accepts and its Python/NumPy meaning."""

    name: str  # IR op name
    kinds: frozenset[str]  # accepted dtype kinds: float, int, uint, bool
    word: str  # for messages: "add", "compare"
    fold: Callable[..., object] | None = None  # compile-time folding on Python numbers
    compare: bool = False


NUM = frozenset({"float", "int", "uint"})
INT = frozenset({"int", "uint"})
INTB = frozenset({"int", "uint", "bool"})
FLOAT = frozenset({"float"})
ANY = frozenset({"float", "int", "uint", "bool"})

BINARY: dict[str, Elementwise] = {e.name: e for e in [
    Elementwise("add", NUM, "add", operator.add),
    Elementwise("sub", NUM, "subtract", operator.sub),
    Elementwise("mul", NUM, "multiply", operator.mul),
    Elementwise("div", FLOAT, "divide", operator.truediv),
    Elementwise("floordiv", NUM, "floor-divide", operator.floordiv),
    Elementwise("mod", NUM, "take the remainder of", operator.mod),
    Elementwise("pow", FLOAT, "raise", operator.pow),
    Elementwise("and", INTB, "and", operator.and_),
    Elementwise("or", INTB, "or", operator.or_),
    Elementwise("xor", INTB, "xor", operator.xor),
    Elementwise("shl", INT, "shift", operator.lshift),
    Elementwise("shr", INT, "shift", operator.rshift),
    Elementwise("maximum", NUM, "take the maximum of", max),
    Elementwise("minimum", NUM, "take the minimum of", min),
    Elementwise("eq", ANY, "compare", operator.eq, True),
    Elementwise("ne", ANY, "compare", operator.ne, True),
    Elementwise("lt", NUM, "compare", operator.lt, True),
    Elementwise("le", NUM, "compare", operator.le, True),
    Elementwise("gt", NUM, "compare", operator.gt, True),
    Elementwise("ge", NUM, "compare", operator.ge, True),
]}

UNARY: dict[str, Elementwise] = {e.name: e for e in [
    Elementwise("neg", NUM, "negate", operator.neg),
    Elementwise("invert", INTB, "invert", operator.invert),
    Elementwise("not", frozenset({"bool"}), "not", operator.not_),
    Elementwise("abs", NUM, "take abs of", abs),
    Elementwise("exp", FLOAT, "exp", math.exp),
    Elementwise("exp2", FLOAT, "exp2", lambda x: 2.0 ** x),
    Elementwise("log", FLOAT, "log", math.log),
    Elementwise("log2", FLOAT, "log2", math.log2),
    Elementwise("sqrt", FLOAT, "sqrt", math.sqrt),
    Elementwise("rsqrt", FLOAT, "rsqrt", lambda x: 1.0 / math.sqrt(x)),
    Elementwise("sin", FLOAT, "sin", math.sin),
    Elementwise("cos", FLOAT, "cos", math.cos),
    Elementwise("tanh", FLOAT, "tanh", math.tanh),
    Elementwise("floor", FLOAT, "floor", math.floor),
    Elementwise("ceil", FLOAT, "ceil", math.ceil),
]}

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
    _check_kind(b, spec, a.type.dtype, span, lhs if isinstance(x.type, TileType) else rhs)
    out = TileType(BOOL if spec.compare else a.type.dtype, a.type.shape)
    return b.emit1(name, [a, c], out, span)


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


def _check_kind(b: Builder, spec: Elementwise, dtype: DType, span: Span, where: Arg) -> None:
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
    _check_kind(b, spec, x.type.dtype, span, arg)
    return b.emit1(name, [x], x.type, span)


def _unary_rule(name: str) -> Rule:
    return lambda b, c: unary(b, name, c["x"], c.span)


def _binary_rule(name: str) -> Rule:
    return lambda b, c: binary(b, name, c["x"], c["y"], c.span)


for _name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "abs", "floor",
              "ceil"):
    function(_name, "x")(_unary_rule(_name))
for _name in ("maximum", "minimum"):
    function(_name, "x, y")(_binary_rule(_name))


@function("where", "cond, x, y")
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


@method("tile", "astype", "dtype")
def _astype(b: Builder, c: Call) -> FValue:
    x = b.tile(c["self"], "astype")
    dtype = b.dtype(c["dtype"], "the dtype of astype()")
    assert isinstance(x.type, TileType)
    if x.type.dtype == dtype:
        return x
    return b.emit1("astype", [x], TileType(dtype, x.type.shape), c.span, dtype=dtype)
