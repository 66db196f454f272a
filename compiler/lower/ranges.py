"""Compile-time ranges of signed integer index tiles, for the bounds checks of gathers.

`Ranges(kernel).of(v)` is [lo, hi] holding every element of `v` in every block, or None when
that is not known. Known: integer constants (literals, Consts), `arange` (an iota), reshapes and
broadcasts of known values, add / sub / mul of known values, and the induction variable of a
`for` loop whose bounds and step are known (step >= 1). Every result's exact interval must fit
its dtype, so no wrapped value is ever given a range (an i8 `arange(256)`, a product past 2**31:
None). An axis whose index range lies inside a static extent needs no check (pointers.py):
`cols = k * BK + arange(BK)` in a loop over `range(K // BK)` with K the static width, or a
`load_at` at offset 0 of a static (PAGE, D) block.
"""

from __future__ import annotations

from ..dtypes import DType
from ..intervals import Interval as Range
from ..intervals import combine
from ..ir import KernelIR, Op, Value, walk
from ..types import TileType

I32_RANGE = (-(1 << 31), (1 << 31) - 1)


def _limits(dt: DType) -> Range | None:
    """The values a signed integer dtype holds (None: not a signed integer)."""
    if dt.kind != "int":
        return None
    return -(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1


class Ranges:
    def __init__(self, kernel: KernelIR) -> None:
        self.defs: dict[int, Op] = {}
        self.loops: dict[int, Op] = {}  # a for loop's induction variable -> the loop
        for op in walk(kernel.body):
            for r in op.results:
                self.defs[id(r)] = op
            if op.name == "for" and op.regions and op.regions[0].args:
                self.loops[id(op.regions[0].args[0])] = op
        self.memo: dict[int, Range | None] = {}

    def of(self, v: Value) -> Range | None:
        key = id(v)
        if key not in self.memo:
            self.memo[key] = None  # a value reached again while computing it: unknown
            self.memo[key] = self._fit(v, self._compute(v))
        return self.memo[key]

    @staticmethod
    def _fit(v: Value, r: Range | None) -> Range | None:
        if r is None:
            return None
        if v.is_const:
            limits: Range | None = I32_RANGE
        elif isinstance(v.type, TileType):
            limits = _limits(v.type.dtype)
        else:
            limits = None
        if limits is None or not limits[0] <= r[0] <= r[1] <= limits[1]:
            return None
        return r

    def _compute(self, v: Value) -> Range | None:
        if v.is_const:
            c = v.const
            return (c, c) if isinstance(c, int) and not isinstance(c, bool) else None
        if id(v) in self.loops:
            return self._induction(self.loops[id(v)])
        op = self.defs.get(id(v))
        if op is None:
            return None
        if op.name == "constant":
            c = op.attrs.get("value")
            return (c, c) if isinstance(c, int) and not isinstance(c, bool) else None
        if op.name == "iota":
            n = 1
            for d in getattr(op.result.type, "shape", ()):
                n *= d if isinstance(d, int) else 0
            return (0, n - 1) if n >= 1 else None
        if op.name in ("reshape", "broadcast"):
            return self.of(op.operands[0])
        if op.name in ("add", "sub", "mul") and len(op.operands) == 2:
            return _arith(op.name, self.of(op.operands[0]), self.of(op.operands[1]))
        return None

    def _induction(self, loop: Op) -> Range | None:
        """for iv in range(lb, ub, step): lb <= iv < ub, for step >= 1."""
        lb, ub, step = (self.of(x) for x in loop.operands[:3])
        if lb is None or ub is None or step is None or step[0] < 1 or lb[0] > ub[1] - 1:
            return None
        return lb[0], ub[1] - 1


def _arith(name: str, x: Range | None, y: Range | None) -> Range | None:
    return None if x is None or y is None else combine(name, x, y)
