"""Range loops that always finish: the step check of `range_check` and the form of each `for`.

Tile IR's `for` counts `iv = lb, lb + step, ...` while `iv < ub` and wraps `iv + step` around
at 2**31, so a step below 1 or a last value within `step` of 2**31 - 1 would loop forever. The
kernel language has Python's `range` semantics instead (docs/language.md):

- A step that arrives at run time passes through `range_check` (frontend/control.py). Below 1
  the loop's upper bound becomes its lower bound, so the loop runs 0 times, and the failure goes
  into this launch's status word: one i64 behind the entry's last parameter (a pointer the
  runtime passes, runtime/backends/status.py), `(step << 32) | (check number + 1)`, written by a
  masked atomic exchange so racing blocks write whole words. The runtime reads it when the
  launch completes and raises CT411 with the interpreter's message. Kernels without run-time
  steps get no status parameter.
- A `for` whose `iv + step` cannot pass 2**31 - 1 (step 1, or a constant step with an upper
  bound known to be small enough) stays a plain `for`. Otherwise, when `lb >= 0` is known, it
  compares unsigned with `ub` raised to at least 0: `iv + step` then stays below 2**32, and a
  value past 2**31 - 1 ends the loop as Python's range would. That `for` sits in an
  `if lb < ub`, so an empty range never reaches it: a Qwen3 decode step did not finish on the
  H200 once its attention loop took this form with empty ranges in some blocks (the guard is
  one compare). Otherwise the `for` becomes a `loop` that checks `iv < ub` at the top and
  `iv <= 2**31 - 1 - step` before stepping.

(Loops with break/continue/return are `loop`s already; the frontend adds the same check before
their step.) `for zt in z.tiles()` loops stay plain: they start at the block id and step by the
block count, which needs fewer than 2**31 - blocks tiles (docs/runtime.md says so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bytecode.attrs import AtomicMode, CmpPredicate, MemoryOrdering, MemoryScope, Signedness
from ..bytecode.types import TOKEN
from ..intervals import I32_MAX, steps_within_i32
from ..ir import Op
from ..ir import Value as IrValue
from .types import I1_TILE, I32_TILE, I64_TILE

if TYPE_CHECKING:
    from ..bytecode import Builder, Value
    from .context import LowerCtx

SIGNED = Signedness.SIGNED

# Ops whose i32 results are never negative (ids, counts, extents), for the unsigned form.
_NON_NEGATIVE = frozenset({"block_id", "num_blocks", "tile_index", "tile_coords", "tile_count",
                           "tiles_start_step", "num_tiles", "slab_extent",
                           "tensor_extent"})


def lower_range_check(L: LowerCtx, op: Op) -> None:
    """`ub` when `step >= 1`; else `lb` (0 iterations) and the status word records it."""
    lb, ub, step = (L.v(x) for x in op.operands)
    b = L.b
    ok = _cmp(b, step, b.constant(1, I32_TILE), CmpPredicate.GE)
    L.bind(op, [b.emit("select", [I32_TILE], ok, ub, lb)])
    status = L.status
    if status is None:
        return
    failed = b.emit("xori", [I1_TILE], ok, b.constant(True, I1_TILE))
    number = L.range_check_numbers[op] + 1
    word = b.emit("shli", [I64_TILE], b.emit("exti", [I64_TILE], step, signedness=SIGNED),
                  b.constant(32, I64_TILE))
    word = b.emit("ori", [I64_TILE], word, b.constant(number, I64_TILE))
    b.op("atomic_rmw_tko", [I64_TILE, TOKEN], status, word, failed, L.entry_token,
         memory_ordering=MemoryOrdering.RELAXED, memory_scope=MemoryScope.DEVICE,
         mode=AtomicMode.XCHG)


def for_form(L: LowerCtx, op: Op) -> str:
    """"plain", "unsigned" or "loop" for an IR `for` (see the module docstring)."""
    lb, ub, step = op.operands[:3]
    made = L.ranges.defs.get(id(step))
    if made is not None and made.name == "tiles_start_step":
        return "plain"  # `z.tiles()`: steps by the block count (docs/runtime.md)
    s = L.ranges.of(step)
    u = L.ranges.of(ub)
    if s is not None and s[0] >= 1 and steps_within_i32(s[1], None if u is None else u[1]):
        return "plain"
    if _at_least_zero(L, lb):
        return "unsigned"
    return "loop"


def unsigned_bound(L: LowerCtx, ub: IrValue) -> Value:
    """`ub` for an unsigned comparison: a negative one (no iterations) becomes 0."""
    v = L.v(ub)
    if _at_least_zero(L, ub):
        return v
    return L.b.emit("maxi", [I32_TILE], v, L.b.constant(0, I32_TILE), signedness=SIGNED)


def entered(b: Builder, lb: Value, ub: Value, res_t: list[Any], skipped: list[Value],
            loop: Callable[[], list[Value]]) -> list[Value]:
    """An unsigned `for` only where it runs at least once (lb < ub): `loop()` emits it in the
    `if`'s then-branch; an empty range yields `skipped` (the loop's initial values), so
    tileiras's handling of an empty unsigned `for` is never relied on."""
    branch = b.op("if", res_t, _cmp(b, lb, ub, CmpPredicate.LT), regions=[[], []])
    with b.at(branch.regions[0]):
        b.op("yield", [], loop())
    with b.at(branch.regions[1]):
        b.op("yield", [], skipped)
    return list(branch.results)


def enter_checked(b: Builder, iv: Value, ub: Value, leave: list[Value]) -> None:
    """The top of a `for` turned into a `loop`: break (passing `leave`) unless iv < ub."""
    _exit_unless(b, _cmp(b, iv, ub, CmpPredicate.LT), leave)


def step_checked(b: Builder, iv: Value, step: Value, leave: list[Value]) -> Value:
    """Before stepping: break (passing `leave`) if `iv + step` would pass 2**31 - 1; returns
    `iv + step`."""
    room = b.emit("subi", [I32_TILE], b.constant(I32_MAX, I32_TILE), step)
    _exit_unless(b, _cmp(b, iv, room, CmpPredicate.LE), leave)
    return b.emit("addi", [I32_TILE], iv, step)


def _exit_unless(b: Builder, cond: Value, leave: list[Value]) -> None:
    branch = b.op("if", [], cond, regions=[[], []])
    with b.at(branch.regions[0]):
        b.op("yield", [], [])
    with b.at(branch.regions[1]):
        b.op("break", [], leave)


def _cmp(b: Builder, x: Value, y: Value, pred: CmpPredicate) -> Value:
    return b.emit("cmpi", [I1_TILE], x, y, comparison_predicate=pred, signedness=SIGNED)


def _at_least_zero(L: LowerCtx, v: IrValue, depth: int = 0) -> bool:
    """Whether `v` is never negative: a known range, an id or count, `a % c` (c > 0), `a // c`
    and min/max of such values (a few levels deep; anything else is not known)."""
    r = L.ranges.of(v)
    if r is not None:
        return r[0] >= 0
    op = L.ranges.defs.get(id(v))
    if op is None or depth > 4:
        return False
    if op.name in _NON_NEGATIVE:
        return True
    if op.name in ("mod", "floordiv") and len(op.operands) == 2:
        c = L.ranges.of(op.operands[1])
        if c is None or c[0] < 1:
            return False
        return op.name == "mod" or _at_least_zero(L, op.operands[0], depth + 1)
    if op.name == "minimum":
        return all(_at_least_zero(L, x, depth + 1) for x in op.operands)
    if op.name == "maximum":
        return any(_at_least_zero(L, x, depth + 1) for x in op.operands)
    if op.name == "astype" and op.operands and op.attrs.get("dtype") is not None:
        src = op.operands[0].type
        dt = getattr(src, "dtype", None)
        return dt is not None and dt.kind == "uint" and dt.bits < 32
    return False
