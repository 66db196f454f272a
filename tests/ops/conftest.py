"""Per-op tests: each file defines its kernels, checks the interpreter against NumPy, lowers and
assembles them with tileiras, and (with -m gpu) compares CUDA with the interpreter."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutile.compiler.toolchain import DiskCache, KernelCompiler, Toolchain
from cutile.runtime import context

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "lower"))


@pytest.fixture(scope="session")
def compiler(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> KernelCompiler:
    return KernelCompiler(toolchain, DiskCache(tmp_path_factory.mktemp("ops-cache")))


@pytest.fixture(scope="session")
def cuda_backend() -> Any:
    try:
        from cutile.runtime.cuda import driver

        present = driver.device_count() > 0
    except Exception:  # no driver or no bindings: no GPU here
        present = False
    if not present:
        pytest.skip("no CUDA device")
    from cutile.runtime.backends.cuda import CudaBackend

    return CudaBackend(0)


@pytest.fixture
def on_cuda(cuda_backend: Any) -> Iterator[Any]:
    old = context.set_backend(cuda_backend)
    yield cuda_backend
    context.set_backend(old)
