"""The elementwise half of the lowering as data: typed-IR op name -> Tile IR opcode per dtype
family, plus the attributes each needs. Ops that are not one instruction (floordiv, mod,
invert, not) are composed in `arith.py`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..bytecode.attrs import CmpOrdering, CmpPredicate


@dataclass(frozen=True)
class Rule:
    float_op: str | None = None
    int_op: str | None = None  # also used for bool (i1) operands
    signed: bool = False  # the int op takes `signedness` from the operand dtype
    float_attrs: dict[str, object] = field(default_factory=dict)
    int_attrs: dict[str, object] = field(default_factory=dict)
    f32_attrs: dict[str, object] = field(default_factory=dict)  # over float_attrs for f32


def _cmp(pred: CmpPredicate) -> Rule:
    # `ne` is unordered so that NaN != NaN is true, as in NumPy; the others are ordered.
    order = CmpOrdering.UNORDERED if pred is CmpPredicate.NE else CmpOrdering.ORDERED
    return Rule("cmpf", "cmpi", True,
                {"comparison_predicate": pred, "comparison_ordering": order},
                {"comparison_predicate": pred})


_NAN: dict[str, object] = {"propagate_nan": True}  # NumPy's maximum/minimum propagate NaN

BINARY: dict[str, Rule] = {
    "add": Rule("addf", "addi"),
    "sub": Rule("subf", "subi"),
    "mul": Rule("mulf", "muli"),
    "div": Rule("divf"),
    "pow": Rule("pow"),
    "and": Rule(int_op="andi"),
    "or": Rule(int_op="ori"),
    "xor": Rule(int_op="xori"),
    "shl": Rule(int_op="shli"),
    "shr": Rule(int_op="shri", signed=True),
    "maximum": Rule("maxf", "maxi", True, _NAN),
    "minimum": Rule("minf", "mini", True, _NAN),
    "eq": _cmp(CmpPredicate.EQ),
    "ne": _cmp(CmpPredicate.NE),
    "lt": _cmp(CmpPredicate.LT),
    "le": _cmp(CmpPredicate.LE),
    "gt": _cmp(CmpPredicate.GT),
    "ge": _cmp(CmpPredicate.GE),
}

UNARY: dict[str, Rule] = {
    "neg": Rule("negf", "negi"),
    "abs": Rule("absf", "absi"),
    "exp": Rule("exp"),
    # the hardware ex2 flushes subnormals; keeping them costs 3 instructions per element, for
    # results below 2**-126 only (softmax and attention are dominated by this op)
    "exp2": Rule("exp2", f32_attrs={"flush_to_zero": True}),
    "log": Rule("log"),
    "log2": Rule("log2"),
    "sqrt": Rule("sqrt"),
    "rsqrt": Rule("rsqrt"),
    "sin": Rule("sin"),
    "cos": Rule("cos"),
    "tanh": Rule("tanh"),
    "floor": Rule("floor"),
    "ceil": Rule("ceil"),
}

# Composite ops, lowered in arith.py.
COMPOSITE = frozenset({"floordiv", "mod", "invert", "not"})

# reduce/scan kinds: body op per family and the identity element.
REDUCE_OPS: dict[str, tuple[str, str]] = {
    "sum": ("addf", "addi"),
    "prod": ("mulf", "muli"),
    "max": ("maxf", "maxi"),
    "min": ("minf", "mini"),
    "cumsum": ("addf", "addi"),
}
