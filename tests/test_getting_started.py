"""docs/getting-started.md says what the code does: its first kernel runs on the interpreter and
checks clean, and the edits its text suggests give the codes it names (and --fix mends them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
LAUNCH = "z, x, y = add(z, x, y).sync()"


def _first_kernel() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert LAUNCH in blocks[0]
    return str(blocks[0])


def _check(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cutile.checker", *flags, str(path)],
                          capture_output=True, text=True, cwd=path.parent, timeout=120)


def test_the_first_kernel_runs_and_checks_clean(tmp_path: Path) -> None:
    path = tmp_path / "add.py"
    path.write_text(_first_kernel())
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300, env={"CUTILE_BACKEND": "interpreter",
                                                         "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and "ok on interpreter" in run.stdout, run.stderr
    assert _check(path).returncode == 0


@pytest.mark.parametrize(("edit", "codes"), [("add(z, x, y).sync()", ["CT301"]),
                                             ("add(z, x, y)", ["CT305", "CT301"])])
def test_the_suggested_mistakes_give_the_named_codes(tmp_path: Path, edit: str,
                                                     codes: list[str]) -> None:
    path = tmp_path / "add.py"
    path.write_text(_first_kernel().replace(LAUNCH, edit))
    found = re.findall(r" (CT\d+) ", _check(path).stdout)
    assert found == codes
    if edit.endswith(".sync()"):  # the page says --fix puts the rebinding back
        _check(path, "--fix")
        assert LAUNCH in path.read_text() and _check(path).returncode == 0
