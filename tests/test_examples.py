"""Every example runs (interpreter in CI, CUDA with -m gpu), verifies itself, and checks clean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cutile.compiler import check_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _run(path: Path, backend: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUTILE_BACKEND": backend}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_checks_clean(path: Path) -> None:
    assert check_source(path.read_text(), str(path)) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_interpreter(path: Path) -> None:
    done = _run(path, "interpreter")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "interpreter" in done.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_gpu(path: Path) -> None:
    done = _run(path, "cuda")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cuda" in done.stdout
