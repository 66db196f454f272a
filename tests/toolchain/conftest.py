"""Fixtures: the real toolchain (a pinned dependency, so normally present)."""

from __future__ import annotations

import pytest

from cutile.compiler.errors import CompileError
from cutile.compiler.toolchain import Toolchain, find_toolchain


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    try:
        return find_toolchain()
    except CompileError as exc:  # only when the pinned wheels are really absent
        pytest.skip(f"tileiras not found: {exc}")


@pytest.fixture(scope="session")
def disasm_toolchain(toolchain: Toolchain) -> Toolchain:
    if toolchain.disasm is None:
        pytest.skip(f"no tileirdisasm next to {toolchain.tileiras}")
    return toolchain
