"""Elementwise ops, casts and reductions on bytecode values. Each function takes the builder,
the operand values and the cutile dtypes (Tile IR integers are signless, so the sign comes from
the cutile dtype)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bytecode.attrs import (
    CmpOrdering,
    CmpPredicate,
    FloatAttr,
    IntegerAttr,
    Overflow,
    RoundingMode,
    Signedness,
)
from ..bytecode.floats import F8_OVERFLOW
from ..bytecode.types import Scalar
from ..bytecode.types import TileType as BcTile
from ..dtypes import F32, F64, I8, I32, DType
from .table import Rule
from .types import LowerError, scalar

if TYPE_CHECKING:
    from ..bytecode import Builder, Value


def sign(dtype: DType) -> Signedness:
    return Signedness.SIGNED if dtype.kind == "int" else Signedness.UNSIGNED


def _bool_of(t: BcTile) -> BcTile:
    return BcTile(Scalar.I1, t.shape)


def _ty(v: Value) -> BcTile:
    assert isinstance(v.type, BcTile)
    return v.type


def splat(b: Builder, value: float | int | bool, like: BcTile) -> Value:
    return b.constant(value, like)


def apply_rule(b: Builder, rule: Rule, name: str, dtype: DType, out: BcTile,
               *args: Value) -> Value:
    """One op by its Rule; `dtype` is the operands' dtype, `out` the result type."""
    if dtype.is_float:
        if rule.float_op is None:
            raise LowerError(f"'{name}' has no lowering for {dtype} tiles")
        attrs = rule.float_attrs
        if rule.f32_attrs and dtype.name == "f32":
            attrs = {**attrs, **rule.f32_attrs}
        return b.emit(rule.float_op, [out], *args, **attrs)
    if rule.int_op is None:
        raise LowerError(f"'{name}' has no lowering for {dtype} tiles")
    attrs = dict(rule.int_attrs)
    if rule.signed:
        attrs["signedness"] = sign(dtype)
    return b.emit(rule.int_op, [out], *args, **attrs)


def invert(b: Builder, x: Value, dtype: DType) -> Value:
    """`~x` on ints, `not x` / `~x` on bools: xor with all ones."""
    t = _ty(x)
    ones: int | bool = True if dtype.is_bool else -1
    return b.emit("xori", [t], x, splat(b, ones, t))


def compare(b: Builder, pred: CmpPredicate, x: Value, y: Value, dtype: DType) -> Value:
    out = _bool_of(_ty(x))
    if dtype.is_float:
        return b.emit("cmpf", [out], x, y, comparison_predicate=pred,
                      comparison_ordering=CmpOrdering.ORDERED)
    return b.emit("cmpi", [out], x, y, comparison_predicate=pred, signedness=sign(dtype))


def _floor_fix(b: Builder, r: Value, y: Value, dtype: DType) -> Value:
    """Python's remainder takes the divisor's sign: add y where r != 0 and signs differ."""
    zero = splat(b, 0, _ty(r))
    nonzero = compare(b, CmpPredicate.NE, r, zero, dtype)
    r_neg = compare(b, CmpPredicate.LT, r, zero, dtype)
    y_neg = compare(b, CmpPredicate.LT, y, zero, dtype)
    differ = b.emit("xori", [_ty(nonzero)], r_neg, y_neg)
    fix = b.emit("andi", [_ty(nonzero)], nonzero, differ)
    add = "addf" if dtype.is_float else "addi"
    return b.emit("select", [_ty(r)], fix, b.emit(add, [_ty(r)], r, y), r)


def mod(b: Builder, x: Value, y: Value, dtype: DType) -> Value:
    t = _ty(x)
    if dtype.is_float:
        return _floor_fix(b, b.emit("remf", [t], x, y), y, dtype)
    r = b.emit("remi", [t], x, y, signedness=sign(dtype))
    return r if dtype.kind == "uint" else _floor_fix(b, r, y, dtype)


def floordiv(b: Builder, x: Value, y: Value, dtype: DType) -> Value:
    t = _ty(x)
    if dtype.is_float:
        return b.emit("floor", [t], b.emit("divf", [t], x, y))
    rounding = RoundingMode.ZERO if dtype.kind == "uint" else RoundingMode.NEG_INF
    return b.emit("divi", [t], x, y, signedness=sign(dtype), rounding=rounding)


# f8 formats whose conversions follow runtime/floats.py's rule (the smallest magnitude that
# overflows and whether that boundary, a tie, itself overflows: bytecode/floats.py's
# F8_OVERFLOW), and how the saturated code the GPU gives (+-448 = 0x7E/0xFE, +-57344 =
# 0x7B/0xFB) becomes the rule's (NaN 0x7F/0xFF: or 1; +-inf 0x7C/0xFC: add 1)
F8_MEND: dict[str, str] = {"f8e4m3": "ori", "f8e5m2": "addi"}


def astype(b: Builder, x: Value, src: DType, dst: DType) -> Value:
    st = _ty(x)
    out = BcTile(scalar(dst), st.shape)
    if scalar(src) == scalar(dst):
        return x  # same storage (e.g. i32 <-> u32): Tile IR integers are signless
    if dst.name in F8_MEND and not src.is_bool:
        return _to_f8(b, x, src, dst)
    if dst.is_bool:
        zero = splat(b, 0, st)
        if src.is_float:
            return b.emit("cmpf", [out], x, zero, comparison_predicate=CmpPredicate.NE,
                          comparison_ordering=CmpOrdering.UNORDERED)
        return b.emit("cmpi", [out], x, zero, comparison_predicate=CmpPredicate.NE,
                      signedness=Signedness.SIGNED)
    if src.is_float and dst.is_float:
        # tileiras converts to f8E8M0FNU only toward zero or +inf; toward zero is the MX scale
        # (and the interpreter's rounding, runtime/floats.py)
        mode = RoundingMode.ZERO if dst.name == "f8e8m0" else RoundingMode.NEAREST_EVEN
        return b.emit("ftof", [out], x, rounding_mode=mode)
    if dst.is_float:  # int or bool -> float
        return b.emit("itof", [out], x, signedness=sign(src),
                      rounding_mode=RoundingMode.NEAREST_EVEN)
    if src.is_float:  # float -> int truncates toward zero, as NumPy's astype
        return b.emit("ftoi", [out], x, signedness=sign(dst),
                      rounding_mode=RoundingMode.NEAREST_INT_TO_ZERO)
    if scalar(dst).bits > scalar(src).bits:
        return b.emit("exti", [out], x, signedness=sign(src))
    return b.emit("trunci", [out], x, overflow=Overflow.NONE)


def _to_f8(b: Builder, x: Value, src: DType, dst: DType) -> Value:
    """A conversion to f8e4m3/f8e5m2 by the rule of runtime/floats.py. The GPU converts with
    `cvt.rn.satfinite` (PTX has no other f32 -> f8 form): it rounds to nearest even but clamps
    +-inf and overflow to the largest finite value and turns every NaN into 0x7F. Where the
    source's magnitude overflows, the saturated code is mended into the rule's NaN or inf: an
    absf, a compare, an integer or/add and a select per element. f64 goes through f32 rounded to
    odd (tileiras would round twice), integers and other f8 formats through f32 (exact below
    2**24, and past that the result is NaN or inf whatever the rounding)."""
    if src.is_integer or src.name in F8_MEND:
        x, src = astype(b, x, src, F32), F32
    elif src == F64:
        x, src = _f64_to_f32_odd(b, x), F32
    st = _ty(x)
    out = BcTile(scalar(dst), st.shape)
    y = b.emit("ftof", [out], x, rounding_mode=RoundingMode.NEAREST_EVEN)
    limit, tie_overflows, _ = F8_OVERFLOW[scalar(dst)]
    big = b.emit("cmpf", [_bool_of(st)], b.emit("absf", [st], x), splat(b, limit, st),
                 comparison_predicate=CmpPredicate.GE if tie_overflows else CmpPredicate.GT,
                 comparison_ordering=CmpOrdering.ORDERED)
    bits_t = BcTile(scalar(I8), st.shape)
    bits = b.emit("bitcast", [bits_t], y)
    mended = b.emit(F8_MEND[dst.name], [bits_t], bits, splat(b, 1, bits_t))
    return b.emit("bitcast", [out], b.emit("select", [bits_t], big, mended, bits))


def _f64_to_f32_odd(b: Builder, x: Value) -> Value:
    """f64 -> f32 rounded to odd: an inexact result is the neighbour toward zero with its last
    bit set. Rounding that to a narrower format to nearest even equals rounding x directly."""
    st = _ty(x)
    f32_t, i32_t, i1_t = BcTile(scalar(F32), st.shape), BcTile(scalar(I32), st.shape), _bool_of(st)
    y = b.emit("ftof", [f32_t], x, rounding_mode=RoundingMode.NEAREST_EVEN)
    back = b.emit("ftof", [st], y, rounding_mode=RoundingMode.NEAREST_EVEN)
    inexact = b.emit("cmpf", [i1_t], back, x, comparison_predicate=CmpPredicate.NE,
                     comparison_ordering=CmpOrdering.ORDERED)
    away = b.emit("cmpf", [i1_t], b.emit("absf", [st], back), b.emit("absf", [st], x),
                  comparison_predicate=CmpPredicate.GT, comparison_ordering=CmpOrdering.ORDERED)
    bits = b.emit("bitcast", [i32_t], y)
    toward_zero = b.emit("select", [i32_t], away, b.emit("subi", [i32_t], bits,
                                                          splat(b, 1, i32_t)), bits)
    odd = b.emit("ori", [i32_t], toward_zero, splat(b, 1, i32_t))
    return b.emit("bitcast", [f32_t], b.emit("select", [i32_t], inexact, odd, bits))


def _narrow(dtype: DType) -> bool:
    return dtype.is_float and dtype.bits < 32


def reduce(b: Builder, x: Value, axis: int, dtype: DType, out: BcTile, *, ops: tuple[str, str],
           identity: float | int, widen: bool, scan: bool = False, reverse: bool = False,
           body_attrs: dict[str, object] | None = None) -> Value:
    """A reduce (or scan) over `axis` whose body is one op (`ops`: float op, int op).
    `widen`: f16/bf16 accumulate in f32, as the interpreter does."""
    if dtype.is_bool:
        raise LowerError("reductions of bool tiles are not supported")
    work = dtype
    if widen and _narrow(dtype):
        work = F32
        x = astype(b, x, dtype, F32)
    s = scalar(work)
    elem = BcTile(s)
    body_op = ops[0 if work.is_float else 1]
    attrs: dict[str, object] = dict(body_attrs or {}) if work.is_float else {}
    if body_op in ("maxi", "mini"):
        attrs["signedness"] = sign(work)
    ident = FloatAttr(s, float(identity)) if work.is_float else IntegerAttr(s, int(identity))
    if scan:
        op = b.op("scan", [BcTile(s, out.shape)], [x], regions=[[elem, elem]], dim=axis,
                  reverse=reverse, identities=(ident,))
    else:
        dropped = tuple(d for i, d in enumerate(_ty(x).shape) if i != axis)
        op = b.op("reduce", [BcTile(s, dropped)], [x], regions=[[elem, elem]], dim=axis,
                  identities=(ident,))
    with b.at(op.regions[0]) as (e, acc):
        b.op("yield", [], [b.emit(body_op, [elem], e, acc, **attrs)])
    r = op.result
    if work != dtype:
        r = astype(b, r, work, dtype)
    if _ty(r).shape != out.shape:  # keepdims
        r = b.emit("reshape", [out], r)
    return r


def mma(b: Builder, x: Value, y: Value, acc: Value, a_dtype: DType, b_dtype: DType,
        fast_acc: bool = False) -> Value:
    out = _ty(acc)
    if a_dtype.is_float:
        # fast_acc (f8 only, bytecode 13.3+): without it tileiras sums each K step's products
        # in a fresh accumulator and adds it in with FADDs, waiting for the tensor cores
        return b.emit("mmaf", [out], x, y, acc, **({"fast_acc": True} if fast_acc else {}))
    return b.emit("mmai", [out], x, y, acc, signedness_lhs=sign(a_dtype),
                  signedness_rhs=sign(b_dtype))


def fma(b: Builder, x: Value, y: Value, c: Value, *, negate_product: bool = False,
        negate_acc: bool = False) -> Value:
    """x * y + c rounded once. `c - x*y` is fma(-x, y, c) and `x*y - c` is fma(x, y, -c):
    negation is exact, so each equals the separate ops up to that one rounding."""
    t = _ty(c)
    if negate_product:
        x = b.emit("negf", [_ty(x)], x)
    if negate_acc:
        c = b.emit("negf", [t], c)
    return b.emit("fma", [t], x, y, c)
