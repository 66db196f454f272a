"""A memo for checks whose answer depends on their key alone (a layout partitioned or reshaped
before, a constructor's fill value): the answer is kept and the check not run again. Programs
reuse a few keys, so a memo is bounded by clearing it when full rather than by recency.

Keys must hold exact types: 64.0 and True equal 64 and 1 as keys, so a caller builds a key only
from values of the classes it checks for (ints, not floats or bools)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    __slots__ = ("_kept", "bound", "get")

    def __init__(self, bound: int = 4096) -> None:
        self.bound = bound
        self._kept: dict[Hashable, V] = {}
        self.get = self._kept.get  # the lookup, one C call

    @property
    def table(self) -> dict[Hashable, V]:
        """What is kept (the compiled path reads it; clearing keeps the same dict)."""
        return self._kept

    def keep(self, key: Hashable, value: V) -> V:
        if len(self._kept) >= self.bound:
            self._kept.clear()
        self._kept[key] = value
        return value


def exact_ints(value: Any) -> bool:
    """An int or a tuple of ints, bool and float excluded: what a key may hold."""
    if type(value) is int:
        return True
    return type(value) is tuple and all(type(d) is int for d in value)
