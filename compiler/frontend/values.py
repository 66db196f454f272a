"""What a name can be bound to while a kernel is analyzed."""

from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics.diagnostic import Diagnostic, Span
from ..ir import ConstVal, Value
from ..types import ConstType, SymInt


@dataclass(frozen=True)
class TupleVal:
    items: tuple[FValue, ...]


@dataclass(eq=False)
class SlabVal(Value):
    """`zt` in `for zt in z.tiles()`: the Mut tensor `base` at this iteration's tile `index`.
    Frontend-only: memory ops unpack it, so no backend ever sees it as an operand."""

    base: Value | None = None
    index: tuple[Value, ...] = ()


class Unknown:
    """The result of a rejected construct: using it reports nothing more (one root cause)."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Unbound:
    where: str  # "inside a loop", "in some branches of an if"


@dataclass(frozen=True)
class SlabParent(Unbound):
    """A Mut parameter inside its own `for zt in z.tiles()` loop: it names no single slab."""

    slab: str = "zt"  # the loop's target, for the message


FValue = Value | TupleVal | Unknown
Binding = FValue | Unbound


class Reject(Exception):
    """Raised by a rule: the construct is rejected with this diagnostic."""

    def __init__(self, diag: Diagnostic) -> None:
        super().__init__(diag.message)
        self.diag = diag


class Poisoned(Exception):
    """An operand was UNKNOWN: abandon the construct silently."""


def const_of(v: FValue) -> ConstVal:
    """The compile-time value of v (Python tuples for TupleVals), or None if v is not constant."""
    if isinstance(v, Value) and isinstance(v.type, ConstType):
        return v.const
    if isinstance(v, TupleVal):
        items = [const_of(i) for i in v.items]
        if any(i is None for i in items):
            return None
        return tuple(items)
    return None


def is_known_int(c: ConstVal) -> bool:
    return isinstance(c, int) and not isinstance(c, bool)


def is_int_like(c: ConstVal) -> bool:
    return is_known_int(c) or isinstance(c, SymInt)


def const_value(span: Span, value: ConstVal, kind: str | None = None) -> Value:
    if kind is None:
        kind = _kind_of(value)
    return Value(ConstType(kind, value), span, const=value)


def _kind_of(value: ConstVal) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, SymInt)):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if value is None:
        return "none"
    return "dtype"


def literal_fvalue(value: object, span: Span) -> FValue:
    """A module constant or a default argument (a literal, or a tuple of them) as a value."""
    if isinstance(value, tuple):
        return TupleVal(tuple(literal_fvalue(v, span) for v in value))
    return const_value(span, value)  # type: ignore[arg-type]


def none_value(span: Span) -> Value:
    """The value of a call made for its effect (store, printf)."""
    return const_value(span, None, "none")


def symbolic_choice(cond: SymInt, x: FValue, y: FValue, span: Span) -> FValue | None:
    """`x if cond else y` for a condition known only at specialization: numbers of one kind
    (or tuples of them, item by item) become a number known then; None for anything else."""
    if isinstance(x, TupleVal) and isinstance(y, TupleVal) and len(x.items) == len(y.items):
        items = [symbolic_choice(cond, a, b, span) for a, b in zip(x.items, y.items, strict=True)]
        return None if any(i is None for i in items) else \
            TupleVal(tuple(i for i in items if i is not None))
    if not (isinstance(x, Value) and isinstance(y, Value) and isinstance(x.type, ConstType)
            and isinstance(y.type, ConstType) and x.type.kind == y.type.kind
            and x.type.kind in ("int", "float", "bool")):
        return None
    if repr(x.const) == repr(y.const):
        return x
    return const_value(span, SymInt(f"({x.const} if {cond} else {y.const})"), x.type.kind)


def has_unknown(v: FValue) -> bool:
    """Whether v is UNKNOWN or a tuple holding it (an earlier rejection, or a value known only
    at specialization): using it reports nothing more."""
    if isinstance(v, TupleVal):
        return any(has_unknown(i) for i in v.items)
    return isinstance(v, Unknown)
