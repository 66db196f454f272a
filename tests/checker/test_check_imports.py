"""Absolute imports of project kernels resolve from the files, never from the working directory:
the command line from any folder and standard input with --stdin-filename give the same findings
(tests/lsp/test_diagnostics.py checks the language server on the same project)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from checker_fixtures import write

from cutile.checker.cli import main

KERN = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))
'''

HOST = '''\
import cutile as ct
from cutile import f32

from pkg.kern import add


def main() -> None:
    x = ct.randn((1000,), f32, seed=0)
    z = ct.zeros((1000,), f32).partition((128,))
    add(z, x).sync()
    print(z)
'''
# CT301 is found only where `pkg.kern` resolves (the kernel's Mut parameter moves `z`).
CT301 = "host.py:11:11: CT301"


def project(root: Path, marker: dict[str, str] | None = None) -> Path:
    """`root/app/pkg/{__init__,kern,host}.py`: `app` is the folder above the package."""
    write(root, {"app/pkg/__init__.py": "", "app/pkg/kern.py": KERN, "app/pkg/host.py": HOST,
                 **(marker or {})})
    return root / "app"


def check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cwd: Path,
          *argv: str, stdin: str | None = None) -> str:
    monkeypatch.chdir(cwd)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    capsys.readouterr()
    main(["-q", "--output-format", "concise", *argv])
    return capsys.readouterr().out


@pytest.mark.parametrize("where", ["app", "app/pkg", "elsewhere", "."])
def test_same_findings_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str], where: str) -> None:
    app = project(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    out = check(monkeypatch, capsys, tmp_path / where, str(app / "pkg" / "host.py"))
    assert CT301 in out, out
    out = check(monkeypatch, capsys, tmp_path / where, str(app))
    assert CT301 in out, out


@pytest.mark.parametrize("where", ["app", "app/pkg", "."])
def test_stdin_with_filename_finds_the_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    app = project(tmp_path)
    name = str((app / "pkg" / "host.py").relative_to(tmp_path / where))
    out = check(monkeypatch, capsys, tmp_path / where, "-", "--stdin-filename", name, stdin=HOST)
    assert CT301 in out, out


def test_pyproject_folder_is_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    # `scripts/run.py` is in no package; `pkg` is found from the pyproject.toml's folder
    app = project(tmp_path, {"app/pyproject.toml": "[project]\nname = 'app'\n"})
    write(app, {"scripts/run.py": HOST})
    out = check(monkeypatch, capsys, tmp_path, str(app / "scripts" / "run.py"))
    assert "run.py:11:11: CT301" in out, out


def test_src_layout_under_the_pyproject_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"pyproject.toml": "", "src/pkg/__init__.py": "", "src/pkg/kern.py": KERN,
                     "tests/test_host.py": HOST})
    out = check(monkeypatch, capsys, tmp_path / "src", str(tmp_path / "tests" / "test_host.py"))
    assert "test_host.py:11:11: CT301" in out, out


def test_config_folder_is_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    # `other/run.py` is outside the project: `--config` names the project's folder
    app = project(tmp_path, {"app/pyproject.toml": "[tool.cutile-check]\n"})
    write(tmp_path, {"other/run.py": HOST})
    run = str(tmp_path / "other" / "run.py")
    assert "CT301" not in check(monkeypatch, capsys, app, run)
    config = str(app / "pyproject.toml")
    assert "run.py:11:11: CT301" in check(monkeypatch, capsys, tmp_path, "--config", config, run)
    out = check(monkeypatch, capsys, tmp_path, "--config", config, "-", "--stdin-filename", run,
                stdin=HOST)
    assert "run.py:11:11: CT301" in out, out


def test_the_working_folder_is_not_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # Python would not find `pkg` from `scripts/run.py` either (no package, no project file)
    app = project(tmp_path)
    write(app, {"scripts/run.py": HOST})
    out = check(monkeypatch, capsys, app, str(app / "scripts" / "run.py"))
    assert "CT301" not in out, out
