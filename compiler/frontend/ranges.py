"""Integer ranges of scalar index values: the first rungs of the bounds ladder (CT404).

Only what is cheap and certain is tracked: integer constants, the variable of a
`for k in range(a, b, s)` loop whose bounds and step are compile-time ints, and sums,
differences, products and negations of those (`k + 1`, `2 * k`). Anything else has no range,
and a check that needs one stays silent.

A constant's range holds wherever it is used. A loop variable's range says which values some
iteration certainly reaches only while every block between the loop's body and the use runs
on every iteration: `for` bodies with a constant, non-empty range and no break/continue
("sure" blocks). Under an `if`, or in a `while`, the use may be skipped at the very iteration
that would be out of range, so the range is not used there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...diagnostics.diagnostic import Span
from ..intervals import I32_MAX, I32_MIN, combine
from ..ir import Block, Op, Value
from ..types import TileType


@dataclass(frozen=True, slots=True)
class Interval:
    lo: int
    hi: int
    # the body of the outermost loop whose variable this depends on (None: a constant), with
    # that loop's span (the note of a loop-bounded CT404) and its variable's name
    anchor: Block | None = None
    loop: Loop | None = None


@dataclass(frozen=True, slots=True)
class Loop:
    var: Value  # the loop variable (its name is bound after the range is recorded)
    lo: int
    hi: int  # the last value the variable takes
    span: Span  # the loop's target (the note of a loop-bounded CT404)


class Ranges:
    """Per kernel analysis: ranges of scalar int values, and the blocks that run surely."""

    def __init__(self) -> None:
        self._of: dict[int, Interval] = {}
        self._sure: set[int] = set()

    def get(self, v: Value) -> Interval | None:
        return self._of.get(id(v))

    def observe(self, op: Op) -> None:
        """Called for every emitted op: ranges of constants and of affine scalar arithmetic."""
        if len(op.results) != 1 or not _scalar_int(op.results[0]):
            return
        out = op.results[0]
        if op.name == "constant":
            c = op.attrs.get("value")
            if isinstance(c, int) and not isinstance(c, bool):
                self._of[id(out)] = Interval(c, c)
            return
        if op.name not in _ARITH:
            return
        args = [self._of.get(id(a)) for a in op.operands]
        if any(a is None for a in args):
            return
        got = _combine(op.name, [a for a in args if a is not None])
        if got is not None and got.lo >= I32_MIN and got.hi <= I32_MAX:
            self._of[id(out)] = got

    def loop_variable(self, iv: Value, body: Block, bounds: Sequence[Value], sure: bool,
                      span: Span) -> None:
        """`iv` counts over range(lb, ub, step); `sure` when the body runs every iteration."""
        lb, ub, step = (self._of.get(id(v)) for v in bounds)
        if lb is None or ub is None or step is None or any(
                r.anchor is not None or r.lo != r.hi for r in (lb, ub, step)):
            return
        if step.lo <= 0 or lb.lo >= ub.lo:
            return
        last = lb.lo + (ub.lo - 1 - lb.lo) // step.lo * step.lo
        if sure:
            self._sure.add(id(body))
        self._of[id(iv)] = Interval(lb.lo, last, body, Loop(iv, lb.lo, last, span))

    def reached(self, v: Value, blocks: Sequence[Block]) -> Interval | None:
        """The range `v` certainly covers at a use in the innermost of `blocks`: a constant's
        anywhere; a loop variable's only if every block from its loop's body inward is sure."""
        r = self._of.get(id(v))
        if r is None or r.anchor is None:
            return r
        ids = [id(b) for b in blocks]
        if id(r.anchor) not in ids:
            return None
        inner = ids[ids.index(id(r.anchor)):]
        return r if all(i in self._sure for i in inner) else None


_ARITH = frozenset({"add", "sub", "mul", "neg"})


def _scalar_int(v: Value) -> bool:
    t = v.type
    return isinstance(t, TileType) and t.rank == 0 and t.dtype.is_integer


def _combine(name: str, args: list[Interval]) -> Interval | None:
    if name == "neg":
        (a,) = args
        return Interval(-a.hi, -a.lo, a.anchor, a.loop)
    a, b = args
    if a.anchor is not None and b.anchor is not None:
        return None  # k + k, k * j: the extremes need not be reached together; stay silent
    # for mul one side is a constant, so both extremes are reached (an affine form)
    lo, hi = combine(name, (a.lo, a.hi), (b.lo, b.hi))
    anchor, loop = (a.anchor, a.loop) if a.anchor is not None else (b.anchor, b.loop)
    return Interval(lo, hi, anchor, loop)
