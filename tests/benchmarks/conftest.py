"""The benchmark tests import `benchmarks` from the repository root, which the `pytest` script
(unlike `python -m pytest`) does not put on sys.path; without it, `tests/benchmarks` itself would
be found as a namespace package named `benchmarks`."""

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture
def cuda_torch() -> Any:
    """torch with a CUDA device (the GPU tests of rows that time torch peers), else a skip."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch
