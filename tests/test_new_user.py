"""What a new user trips on (issue 15): the light install's dependencies and the errors that
name the `cuda` extra, `mypy --strict` on a user's kernel file and on examples/, `cutile-check .`
at the project root, and `cutile-lsp --version`."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import cutile as ct
from cutile.compiler.toolchain import discover
from cutile.compiler.toolchain.errors import PINNED, WHEELS
from cutile.diagnostics.errors import CompileError

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NVIDIA = ("cuda", "nvidia")


def _names(requirements: list[str]) -> list[str]:
    return [r.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip() for r in
            requirements]


def test_the_base_install_has_no_nvidia_wheels() -> None:
    base = _names(PYPROJECT["project"]["dependencies"])
    assert sorted(base) == ["libcst", "numpy", "pygls"]
    assert not any(n.startswith(NVIDIA) for n in base)


def test_the_cuda_extra_pins_the_toolchain_trio_to_one_version() -> None:
    cuda = PYPROJECT["project"]["optional-dependencies"]["cuda"]
    assert sorted(f"{w}=={PINNED}" for w in WHEELS) == sorted(
        r for r in cuda if r.startswith("nvidia"))
    assert any(r.startswith("cuda-python") for r in cuda)
    assert "cutile[cuda]" in PYPROJECT["project"]["optional-dependencies"]["dev"]


def test_the_pre_commit_hook_installs_the_light_package() -> None:
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "language: python" in hook and "additional_dependencies" not in hook


def test_a_missing_toolchain_names_the_cuda_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "wheel_bin_dir", lambda: None)
    with pytest.raises(CompileError) as err:
        discover.find_toolchain({"PATH": ""})
    text = str(err.value)
    assert "CT501 tileiras was not found" in text and "pip install 'cutile[cuda]'" in text


def test_the_cuda_backend_without_cuda_python_names_the_extra(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cutile.runtime import context

    monkeypatch.setattr(context, "_bindings_installed", lambda: False)
    monkeypatch.setenv("CUTILE_BACKEND", "cuda")
    with pytest.raises(ct.DeviceError, match=r"CT504 .*cuda-python is not installed.*"
                       r"pip install 'cutile\[cuda\]'"):
        context._select()


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False)


def test_cutile_lsp_version() -> None:
    proc = _run(str(BIN / "cutile-lsp"), "--version", cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.startswith("cutile-lsp ")


@pytest.mark.slow
def test_cutile_check_at_the_project_root_is_clean() -> None:
    from cutile.checker.analyze import analyze_paths

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        report = analyze_paths(["."])
    finally:
        os.chdir(cwd)
    assert len(report.files) > 100  # the project's own code is checked...
    assert [f"{d.span.path}: {d.code}" for d in report.diagnostics] == []  # ...and clean
    assert not any("tests/cases" in f or "vscode-extension" in f for f in report.files)


USER_KERNEL = '''\
import numpy as np

import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.function
def twice(t):  # type: ignore[no-untyped-def]
    return t + t


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(twice(ct.load_tile_like(x, z)))


def prepare(n: int) -> ct.HostTensor:
    return ct.from_numpy(np.ones(n, np.float32))


x = prepare(256)
z, x = add(ct.zeros((256,), f32).partition((128,)), x).sync()
'''


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mypy", path=str(BIN)) is None, reason="needs mypy (dev extra)")
def test_mypy_strict_on_a_users_kernel_file_and_on_examples(tmp_path: Path) -> None:
    (tmp_path / "user_kernels.py").write_text(USER_KERNEL)
    # outside the checkout: cutile is found through the installed package (py.typed), not cwd
    proc = _run(str(BIN / "mypy"), "--strict", "--no-incremental", "user_kernels.py",
                str(ROOT / "examples"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    files = 1 + len(list((ROOT / "examples").rglob("*.py")))
    assert f"no issues found in {files} source files" in proc.stdout
