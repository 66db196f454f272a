"""Helpers for runtime tests (a module of its own: test folders each have a conftest)."""

from __future__ import annotations

import inspect


def line_of(marker: str) -> int:
    """The line number of the caller's source line containing `marker` (for span checks)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    lines, start = inspect.getsourcelines(frame.f_back.f_code)
    for offset, text in enumerate(lines):
        if marker in text:
            return start + offset
    raise AssertionError(f"marker {marker!r} not found")
