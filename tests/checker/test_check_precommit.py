"""End to end: the real `pre-commit` installs this repository's hook and runs it on a scratch git
repository: `try-repo` fails on a kernel with a CT201 shape error, then a real `git commit` with
the hook installed fails, and passes once the kernel is fixed.

pre-commit builds the hook's environment by pip-installing this repository at a commit, so the
test uses HEAD (commit your changes first; `try-repo` without `--ref` would copy uncommitted
changes into a new shadow commit, and a new commit means a new environment every run). The
environments are cached in PRE_COMMIT_HOME (CUTILE_PRE_COMMIT_HOME, or a folder in the temp
directory that outlives the test), so only the first run per commit pays for the install.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BROKEN = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def fill(z: Mut[Tensor[f32, (128,)]]) -> None:
    t = ct.zeros((128,), f32) + ct.zeros((64,), f32)
    z.store(t)
'''
FIXED = BROKEN.replace("ct.zeros((64,), f32)", "ct.zeros((128,), f32)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


def _hook_packages(home: str, rev: str) -> list[str]:
    """The distributions installed in the hook's environment for `rev` (pre-commit's cache)."""
    with sqlite3.connect(Path(home) / "db.db") as db:
        paths = [row[0] for row in db.execute("SELECT path FROM repos WHERE ref = ?", (rev,))]
    return sorted({d.name.split("-")[0].lower() for path in paths
                   for d in Path(path).glob("py_env-*/lib/python*/site-packages/*.dist-info")})


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    proc = _run(["git", *args], cwd, env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_pre_commit_hook_fails_then_passes(tmp_path: Path) -> None:
    home = os.environ.get("CUTILE_PRE_COMMIT_HOME") or str(
        Path(tempfile.gettempdir()) / "cutile-pre-commit-home")
    env = dict(os.environ, PRE_COMMIT_HOME=home, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", PRE_COMMIT_COLOR="never")
    env.pop("VIRTUAL_ENV", None)
    rev = _git(ROOT, env, "rev-parse", "HEAD")
    pre_commit = [sys.executable, "-m", "pre_commit"]

    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, env, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT.as_posix()}\n    rev: {rev}\n    hooks:\n"
        "      - id: cutile-check\n")
    (repo / "kernels.py").write_text(BROKEN)
    (repo / "notes.txt").write_text("not python: the hook must not see this file\n")
    _git(repo, env, "add", ".")

    tried = _run([*pre_commit, "try-repo", str(ROOT), "cutile-check", "--ref", rev], repo, env)
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert ("kernels.py:7:9: CT201 [error] cannot add tiles of shapes (128,) and (64,)"
            in tried.stdout)
    assert "notes.txt" not in tried.stdout

    installed = _run([*pre_commit, "install"], repo, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    failing = _run(["git", "commit", "-q", "-m", "add a kernel"], repo, env)
    assert failing.returncode != 0
    assert "CT201" in failing.stdout + failing.stderr
    assert _run(["git", "rev-parse", "HEAD"], repo, env).returncode != 0  # nothing committed
    installed_dists = _hook_packages(home, rev)  # the hook's environment: the light install
    assert "cutile" in installed_dists and "libcst" in installed_dists
    assert not [p for p in installed_dists if p.startswith(("nvidia", "cuda"))], installed_dists

    (repo / "kernels.py").write_text(FIXED)
    _git(repo, env, "add", "kernels.py")
    passing = _run(["git", "commit", "-q", "-m", "add a kernel"], repo, env)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    shown = passing.stdout + passing.stderr  # git shows hook output on stderr
    assert "cutile-check" in shown and "Passed" in shown
