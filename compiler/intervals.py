"""Interval arithmetic on integer ranges [lo, hi], shared by the frontend's bounds checks
(frontend/ranges.py: values an index certainly reaches) and the lowering's (lower/ranges.py:
values an index tile can hold)."""

from __future__ import annotations

Interval = tuple[int, int]


def combine(name: str, a: Interval, b: Interval) -> Interval:
    """The range of `a <name> b` for name in add, sub, mul."""
    if name == "add":
        return a[0] + b[0], a[1] + b[1]
    if name == "sub":
        return a[0] - b[1], a[1] - b[0]
    corners = [x * y for x in a for y in b]
    return min(corners), max(corners)
