"""Lowering tests run the real toolchain (a pinned dependency) with a private cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cutile.compiler.toolchain import DiskCache, KernelCompiler, Toolchain

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def compiler(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> KernelCompiler:
    return KernelCompiler(toolchain, DiskCache(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def private_default_compiler(compiler: KernelCompiler, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code under test that uses the process-wide compiler gets the private cache too."""
    from cutile.compiler.toolchain import service

    monkeypatch.setattr(service, "_DEFAULT", compiler)
