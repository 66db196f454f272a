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
from ..dtypes import ARITH_FLOATS, F32, F64, I8, I32, DType, integer_range
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


def _select(b: Builder, cond: Value, yes: Value, no: Value) -> Value:
    return b.emit("select", [_ty(no)], cond, yes, no)


def _cmp(b: Builder, pred: CmpPredicate, x: Value, y: Value, signedness: Signedness) -> Value:
    return b.emit("cmpi", [_bool_of(_ty(x))], x, y, comparison_predicate=pred,
                  signedness=signedness)


def _safe_divisor(b: Builder, y: Value, dtype: DType) -> tuple[Value, Value]:
    """`y` with 1 in the lanes where Tile IR's divi/remi are undefined (y == 0, and y == -1 for
    signed ints: MIN / -1), and those lanes. The callers give them NumPy's results: x // 0 and
    x % 0 are 0, x // -1 is -x (wrapping), x % -1 is 0. Constant divisors fold all of it away."""
    t = _ty(y)
    special = _cmp(b, CmpPredicate.EQ, y, splat(b, 0, t), sign(dtype))
    if dtype.kind == "int":
        minus_one = _cmp(b, CmpPredicate.EQ, y, splat(b, -1, t), sign(dtype))
        special = b.emit("ori", [_ty(special)], special, minus_one)
    return _select(b, special, splat(b, 1, t), y), special


def mod(b: Builder, x: Value, y: Value, dtype: DType) -> Value:
    t = _ty(x)
    if dtype.is_float:
        r = _floor_fix(b, b.emit("remf", [t], x, y), y, dtype)
        # NumPy's zero remainder takes the divisor's sign (remf gives the dividend's)
        zero = splat(b, 0.0, t)
        signed_zero = _select(b, compare(b, CmpPredicate.LT, y, zero, dtype),
                              splat(b, -0.0, t), zero)
        return _select(b, compare(b, CmpPredicate.EQ, r, zero, dtype), signed_zero, r)
    d, _ = _safe_divisor(b, y, dtype)  # x % 1 == 0: NumPy's x % 0 and x % -1
    r = b.emit("remi", [t], x, d, signedness=sign(dtype))
    return r if dtype.kind == "uint" else _floor_fix(b, r, d, dtype)


def floordiv(b: Builder, x: Value, y: Value, dtype: DType) -> Value:
    t = _ty(x)
    if dtype.is_float:
        return _float_floordiv(b, x, y, dtype)
    rounding = RoundingMode.ZERO if dtype.kind == "uint" else RoundingMode.NEG_INF
    d, special = _safe_divisor(b, y, dtype)
    q = b.emit("divi", [t], x, d, signedness=sign(dtype), rounding=rounding)
    return _select(b, special, b.emit("muli", [t], x, y), q)  # x * 0, x * -1


def _float_floordiv(b: Builder, x: Value, y: Value, dtype: DType) -> Value:
    """NumPy's floor_divide (and CPython's float //, constant folding's): the floor of the exact
    quotient, from fmod (npy_divmod): div = (x - x % y) / y, one less where the remainder's
    sign differs from y's, then floored with a correction; so x // y * y + x % y == x (1.0 // 0.1
    is 9.0, not floor(1.0 / 0.1) = 10.0). y == 0 gives x / y. f16/bf16 work in f32, as NumPy's
    f16 loop does."""
    if _narrow(dtype):
        return astype(b, _float_floordiv(b, astype(b, x, dtype, F32), astype(b, y, dtype, F32),
                                         F32), F32, dtype)
    t = _ty(x)
    zero, one = splat(b, 0.0, t), splat(b, 1.0, t)
    rem = b.emit("remf", [t], x, y)
    div = b.emit("divf", [t], b.emit("subf", [t], x, rem), y)
    nonzero = compare(b, CmpPredicate.NE, rem, zero, dtype)
    differ = b.emit("xori", [_ty(nonzero)], compare(b, CmpPredicate.LT, y, zero, dtype),
                    compare(b, CmpPredicate.LT, rem, zero, dtype))
    fix = b.emit("andi", [_ty(nonzero)], nonzero, differ)
    div = _select(b, fix, b.emit("subf", [t], div, one), div)
    fl = b.emit("floor", [t], div)
    up = compare(b, CmpPredicate.GT, b.emit("subf", [t], div, fl), splat(b, 0.5, t), dtype)
    fl = _select(b, up, b.emit("addf", [t], fl, one), fl)
    q = b.emit("divf", [t], x, y)
    # a zero quotient takes the sign of x / y (copysign(0, x / y))
    fl = _select(b, compare(b, CmpPredicate.EQ, div, zero, dtype),
                 b.emit("mulf", [t], q, zero), fl)
    return _select(b, compare(b, CmpPredicate.EQ, y, zero, dtype), q, fl)


def shift(b: Builder, x: Value, y: Value, dtype: DType, left: bool) -> Value:
    """`x << y` / `x >> y` as NumPy's: an amount of the width or more (a negative one too: Tile
    IR reads amounts as unsigned) gives 0, or the sign for a signed `>>`. Tile IR leaves those
    undefined, so the lanes are selected; a constant amount folds the compare away."""
    t = _ty(x)
    bits = scalar(dtype).bits
    big = _cmp(b, CmpPredicate.GE, y, splat(b, bits, t), Signedness.UNSIGNED)
    if not left and dtype.kind == "int":
        amount = _select(b, big, splat(b, bits - 1, t), y)
        return b.emit("shri", [t], x, amount, signedness=Signedness.SIGNED)
    shifted = (b.emit("shli", [t], x, y) if left
               else b.emit("shri", [t], x, y, signedness=Signedness.UNSIGNED))
    return _select(b, big, splat(b, 0, t), shifted)


# f8 formats whose conversions follow runtime/floats.py's rule (the smallest magnitude that
# overflows and whether that boundary, a tie, itself overflows: bytecode/floats.py's
# F8_OVERFLOW), and how the saturated code the GPU gives (+-448 = 0x7E/0xFE, +-57344 =
# 0x7B/0xFB) becomes the rule's (NaN 0x7F/0xFF: or 1; +-inf 0x7C/0xFC: add 1)
F8_MEND: dict[str, str] = {"f8e4m3": "ori", "f8e5m2": "addi"}


def index_i32(b: Builder, x: Value, src: DType) -> Value:
    """An integer tile index as i32. A 64-bit one outside i32's range becomes -1 (outside every
    tensor, where the interpreter puts it) rather than wrapping into range: 2**32 would be 0.
    A u32 above i32's range turns negative, outside as well."""
    if scalar(src).bits <= 32:
        return astype(b, x, src, I32)
    t = _ty(x)
    flags = _bool_of(t)
    ok = b.emit("cmpi", [flags], x, b.constant(2**31 - 1, t),
                comparison_predicate=CmpPredicate.LE, signedness=sign(src))
    if src.kind == "int":
        low = b.emit("cmpi", [flags], x, b.constant(-2**31, t),
                     comparison_predicate=CmpPredicate.GE, signedness=Signedness.SIGNED)
        ok = b.emit("andi", [flags], ok, low)
    narrow = astype(b, x, src, I32)
    return b.emit("select", [_ty(narrow)], ok, narrow, b.constant(-1, _ty(narrow)))


def astype(b: Builder, x: Value, src: DType, dst: DType) -> Value:
    st = _ty(x)
    out = BcTile(scalar(dst), st.shape)
    if scalar(src) == scalar(dst):
        return x  # same storage (e.g. i32 <-> u32): Tile IR integers are signless
    if src.is_float and src.name not in ARITH_FLOATS and (dst.is_bool or dst.name in F8_MEND):
        # the test against 0 and the f8 rule compare and take absolute values, which tileiras
        # has only for f16/bf16/f32/f64: from tf32 or f8 through f32 (exact)
        x, src = astype(b, x, src, F32), F32
    if dst.name in F8_MEND and not src.is_bool:
        return _to_f8(b, x, src, dst)
    if dst.is_bool:
        zero = splat(b, 0, _ty(x))
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
    if src.is_float:
        return _ftoi(b, x, src, dst)
    if scalar(dst).bits > scalar(src).bits:
        return b.emit("exti", [out], x, signedness=sign(src))
    return b.emit("trunci", [out], x, overflow=Overflow.NONE)


def _float_below(n: int, digits: int) -> int:
    """The largest float of `digits` significant bits that is at most the integer n > 0."""
    drop = max(0, n.bit_length() - digits)
    return (n >> drop) << drop


def _ftoi(b: Builder, x: Value, src: DType, dst: DType) -> Value:
    """float -> int truncates toward zero and saturates: past the range gives the dtype's min or
    max, NaN gives 0 (PTX cvt.rzi's rule, and what tileiras makes of ftoi's 13.4 `saturating`
    flag, which 13.3 lacks). Tile IR's plain ftoi is undefined there, so x is clamped into the
    range first (maxf/minf without propagate_nan drop a NaN), then the lanes past the largest
    float below the max and NaN lanes are selected. Narrow floats convert through f32 (exact)."""
    if src not in (F32, F64):
        x, src = astype(b, x, src, F32), F32
    st = _ty(x)
    out = BcTile(scalar(dst), st.shape)
    lo, hi = integer_range(dst)
    top = _float_below(hi, 24 if src == F32 else 53)
    clamped = b.emit("minf", [st], b.emit("maxf", [st], x, splat(b, lo, st)), splat(b, top, st))
    r = b.emit("ftoi", [out], clamped, signedness=sign(dst),
               rounding_mode=RoundingMode.NEAREST_INT_TO_ZERO)
    if top < hi:  # x > top means x >= 2**bits: the max
        over = b.emit("cmpf", [_bool_of(st)], x, splat(b, top, st),
                      comparison_predicate=CmpPredicate.GT,
                      comparison_ordering=CmpOrdering.ORDERED)
        r = _select(b, over, splat(b, hi, out), r)
    nan = b.emit("cmpf", [_bool_of(st)], x, x, comparison_predicate=CmpPredicate.NE,
                 comparison_ordering=CmpOrdering.UNORDERED)
    return _select(b, nan, splat(b, 0, out), r)


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
           result: DType | None = None, body_attrs: dict[str, object] | None = None) -> Value:
    """A reduce (or scan) over `axis` whose body is one op (`ops`: float op, int op).
    `widen`: f16/bf16 accumulate in f32, as the interpreter does; `result`: the result's dtype
    where it is wider than x's (narrow ints and bools sum in 32 bits): x is extended first."""
    if result is not None and result != dtype:
        x, dtype = astype(b, x, dtype, result), result
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
