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
  counts its trips instead: `t` runs over `0 .. n` by 1 with `n = (ub - lb - 1) // step + 1`
  (0 when `lb >= ub`; exact in i32 since `lb >= 0`) and the body sees `iv = lb + t * step`. An
  earlier form compared `iv` with `ub` unsigned (`for`'s unsignedCmp, behind an `if lb < ub`):
  a Qwen3 decode step's attention loop (`range(r % A, pos // BN + 1, A)`) never finished in it
  on the H200 with tileiras 13.4. Otherwise the `for` becomes a `loop` that checks `iv < ub`
  at the top and `iv <= 2**31 - 1 - step` before stepping.

(Loops with break/continue/return are `loop`s already; the frontend adds the same check before
their step.) `for zt in z.tiles()` loops stay plain: they start at the block id and step by the
block count, which needs fewer than 2**31 - blocks tiles (docs/runtime.md says so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    """"plain", "counted" or "loop" for an IR `for` (see the module docstring)."""
    lb, ub, step = op.operands[:3]
    made = L.ranges.defs.get(id(step))
    if made is not None and made.name == "tiles_start_step":
        return "plain"  # `z.tiles()`: steps by the block count (docs/runtime.md)
    s = L.ranges.of(step)
    u = L.ranges.of(ub)
    if s is not None and s[0] >= 1 and steps_within_i32(s[1], None if u is None else u[1]):
        return "plain"
    if _at_least_zero(L, lb):
        return "counted"
    return "loop"


def counter_bounds(L: LowerCtx, lb: Value, ub: Value, step: IrValue) -> tuple[Value, Value, Value]:
    """The counted form's `for` bounds: 0 to `ceil((ub - lb) / step)` (0 when `lb >= ub`; no
    i32 overflow for `lb >= 0`) by 1. A step not known to be at least 1 divides as
    `max(step, 1)`: below 1 `range_check` has already emptied the range, and the division must
    not trap."""
    b = L.b
    s = L.v(step)
    known = L.ranges.of(step)
    if known is None or known[0] < 1:
        s = b.emit("maxi", [I32_TILE], s, b.constant(1, I32_TILE), signedness=SIGNED)
    last = b.emit("subi", [I32_TILE], b.emit("subi", [I32_TILE], ub, lb), b.constant(1, I32_TILE))
    n = b.emit("addi", [I32_TILE], b.emit("divi", [I32_TILE], last, s, signedness=SIGNED),
               b.constant(1, I32_TILE))
    zero = b.constant(0, I32_TILE)
    return zero, b.emit("select", [I32_TILE], _cmp(b, lb, ub, CmpPredicate.LT), n, zero), \
        b.constant(1, I32_TILE)


def nth_value(b: Builder, lb: Value, step: Value, t: Value) -> Value:
    """The counted form's induction variable at trip `t`: `lb + t * step`."""
    return b.emit("addi", [I32_TILE], lb, b.emit("muli", [I32_TILE], t, step))


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
