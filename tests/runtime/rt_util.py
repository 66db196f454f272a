"""Helpers for runtime tests (a module of its own: test folders each have a conftest)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import numpy as np


def line_of(marker: str) -> int:
    """The line number of the caller's source line containing `marker` (for span checks)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    lines, start = inspect.getsourcelines(frame.f_back.f_code)
    for offset, text in enumerate(lines):
        if marker in text:
            return start + offset
    raise AssertionError(f"marker {marker!r} not found")


def slab_boxes(shape: tuple[int, ...], slab: tuple[int, ...]) -> Iterator[tuple[slice, ...]]:
    """Every slab of a partition of `shape` into `slab`s, clipped at the tensor's edge, in
    row-major order of the slab grid."""
    for corner in np.ndindex(*(-(-n // s) for n, s in zip(shape, slab, strict=True))):
        yield tuple(slice(c * s, min((c + 1) * s, n))
                    for c, s, n in zip(corner, slab, shape, strict=True))
