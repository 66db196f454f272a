"""Interval arithmetic on integer ranges [lo, hi], shared by the frontend's bounds checks
(frontend/ranges.py: values an index certainly reaches) and the lowering's (lower/ranges.py:
values an index tile can hold)."""

from __future__ import annotations

Interval = tuple[int, int]
I32_MIN, I32_MAX = -(2 ** 31), 2 ** 31 - 1


def combine(name: str, a: Interval, b: Interval) -> Interval:
    """The range of `a <name> b` for name in add, sub, mul."""
    if name == "add":
        return a[0] + b[0], a[1] + b[1]
    if name == "sub":
        return a[0] - b[1], a[1] - b[0]
    corners = [x * y for x in a for y in b]
    return min(corners), max(corners)


def steps_within_i32(step_max: int, ub_max: int | None) -> bool:
    """Whether a range loop's `i + step` stays within i32 for every `i < ub` (Tile IR's `for`
    would wrap it; Python's range ends instead): a step of 1, or an upper bound at least the
    step below 2**31. The frontend (a `continue`'s check) and the lowering (a `for`'s form)
    both decide by it."""
    return step_max == 1 or (ub_max is not None and ub_max <= I32_MAX - step_max + 1)
