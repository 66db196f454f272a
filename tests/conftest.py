"""Test-wide settings: GPU tests skip cleanly on machines without an NVIDIA GPU."""

from __future__ import annotations

import functools

import pytest

from cutile.compiler.toolchain import Toolchain, find_toolchain
from cutile.diagnostics.errors import CompileError


@functools.cache
def gpu_available() -> bool:
    try:
        from cuda.bindings import driver
    except ImportError:
        return False
    try:
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return False
        err, count = driver.cuDeviceGetCount()
        return err == driver.CUresult.CUDA_SUCCESS and count > 0
    except Exception:  # a broken driver install is the same as no GPU for the test run
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (none found)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    """The real tileiras toolchain (a pinned dependency, so normally present)."""
    try:
        return find_toolchain()
    except CompileError as exc:  # only when the pinned wheels are really absent
        pytest.skip(f"tileiras not found: {exc}")


@pytest.fixture(scope="session")
def disasm_toolchain(toolchain: Toolchain) -> Toolchain:
    if toolchain.disasm is None:
        pytest.skip(f"no tileirdisasm next to {toolchain.tileiras}")
    return toolchain
