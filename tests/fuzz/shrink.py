"""Delta debugging (Zeller's ddmin): the smallest sublist of a failing input that still fails."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def ddmin(items: Sequence[T], fails: Callable[[list[T]], bool], budget: int = 400) -> list[T]:
    """Remove chunks, then single items, while `fails` stays true; at most `budget` tries.
    `fails(list(items))` is assumed true."""
    current = list(items)
    chunks = 2
    tries = 0
    while len(current) >= 2 and tries < budget:
        size = max(1, len(current) // chunks)
        reduced = False
        for start in range(0, len(current), size):
            candidate = current[:start] + current[start + size:]
            tries += 1
            if candidate and fails(candidate):
                current = candidate
                chunks = max(chunks - 1, 2)
                reduced = True
                break
            if tries >= budget:
                break
        if not reduced:
            if size == 1:
                break
            chunks = min(len(current), chunks * 2)
    return current
