"""Runtime tests run on the interpreter backend unless marked gpu."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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


@pytest.fixture(params=["interpreter", pytest.param("cuda", marks=pytest.mark.gpu)])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test on the interpreter, and on CUDA under `pytest -m gpu`."""
    if request.param == "interpreter":  # explicitly: a gpu-marked test skips the autouse one
        old = context.set_backend(InterpreterBackend())
        yield "interpreter"
        context.set_backend(old)
        return
    from test_gpu import _gpu_backend

    be = _gpu_backend()
    if be is None:
        pytest.skip("no CUDA device")
    old = context.set_backend(be)
    yield "cuda"
    context.set_backend(old)


@pytest.fixture(scope="module")
def cuda() -> Iterator[Any]:
    """The CUDA backend of device 0 (the test skips without one)."""
    from test_gpu import _gpu_backend

    be = _gpu_backend()
    if be is None:
        pytest.skip("no CUDA device")
    yield be


@pytest.fixture
def use_cuda(cuda: Any) -> Iterator[None]:
    """Runs the test on `cuda` (mark a module with `pytest.mark.usefixtures("use_cuda")`)."""
    old = context.set_backend(cuda)
    yield
    context.set_backend(old)
