"""Floating-point contraction: `x * y + c` as one Tile IR `fma`, as nvcc -fmad=true and Triton do.

A float `mul` whose result has exactly one use, an `add`/`sub` of the same dtype in the same
block, is not emitted on its own: the add/sub becomes `fma(x, y, c)`, rounded
once. tileiras does not fuse a separate `mulf` + `addf` itself. Results may differ from the
separately rounded pair (and from the interpreter) by up to half an ulp of the product plus one
rounding of the result (docs/language.md).

Elementwise ops in the typed IR already see operands of the result shape (the frontend inserts
`broadcast`/`reshape`), so the product and the addend need no broadcasting here; a product
that goes through a `broadcast` first is not contracted. A product that is also used elsewhere
(another op, a yield, a loop-carried value) keeps its own `mulf`, and the add/sub stays plain.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..dtypes import ARITH_FLOATS
from ..ir import Block, Op, Value
from ..types import TileType


@dataclass(frozen=True)
class Fused:
    """An add/sub lowered as fma: `mul` is the product, `side` its operand index (0 or 1)."""

    mul: Op
    side: int


@dataclass
class Contractions:
    adds: dict[Op, Fused] = field(default_factory=dict)
    muls: set[Op] = field(default_factory=set)  # products emitted inside their add's fma


def plan(body: Block) -> Contractions:
    """Which add/sub ops of a kernel body become fma, and which muls they absorb."""
    uses = _use_counts(body)
    out = Contractions()
    _plan_block(body, uses, out)
    return out


def _use_counts(block: Block) -> Counter[Value]:
    uses: Counter[Value] = Counter()
    for op in block.ops:
        uses.update(op.operands)
        for region in op.regions:
            uses.update(_use_counts(region))
    return uses


def _plan_block(block: Block, uses: Counter[Value], out: Contractions) -> None:
    defs: dict[Value, Op] = {}  # values defined by ops of this block (not of nested regions)
    for op in block.ops:
        if op.name in ("add", "sub") and _fma_dtype(op):
            fused = _pick(op, defs, uses)
            if fused is not None:
                out.adds[op] = fused
                out.muls.add(fused.mul)
        for region in op.regions:
            _plan_block(region, uses, out)
        for r in op.results:
            defs[r] = op


def _pick(op: Op, defs: dict[Value, Op], uses: Counter[Value]) -> Fused | None:
    """The first operand that is a single-use product of the same dtype and shape."""
    for side, x in enumerate(op.operands):
        mul = defs.get(x)
        if mul is not None and mul.name == "mul" and uses[x] == 1 and _fma_dtype(mul) \
                and mul.result.type == op.result.type:
            return Fused(mul, side)
    return None


def _fma_dtype(op: Op) -> bool:
    """A float op whose operands and result all have one fma-capable dtype."""
    types = [v.type for v in (*op.operands, *op.results)]
    if len(op.operands) != 2 or not all(isinstance(t, TileType) for t in types):
        return False
    names = {t.dtype.name for t in types if isinstance(t, TileType)}
    return len(names) == 1 and names <= ARITH_FLOATS
