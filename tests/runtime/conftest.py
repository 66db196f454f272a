"""Runtime tests run on the interpreter backend unless marked gpu."""

from __future__ import annotations

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
