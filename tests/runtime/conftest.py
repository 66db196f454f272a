"""Runtime tests run on the interpreter backend unless marked gpu."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest

from cutile.runtime import context
from cutile.runtime.backends.interpreter import InterpreterBackend


@pytest.fixture(autouse=True)
def interpreter(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("gpu") is not None:
        yield
        return
    old = context.set_backend(InterpreterBackend())
    yield
    context.set_backend(old)


def line_of(marker: str) -> int:
    """The line number of the caller's source line containing `marker` (for span checks)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    lines, start = inspect.getsourcelines(frame.f_back.f_code)
    for offset, text in enumerate(lines):
        if marker in text:
            return start + offset
    raise AssertionError(f"marker {marker!r} not found")
