"""Finding tileiras, the environment it runs in, and version negotiation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cutile.compiler.bytecode import V13_3, V13_4
from cutile.compiler.toolchain import Toolchain, discover, find_toolchain, negotiate, tool_info
from cutile.diagnostics.errors import CompileError


def fake_tool(path: Path, script: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def test_pinned_wheel_is_found_with_its_parts(toolchain: Toolchain) -> None:
    if toolchain.source != "wheel":
        pytest.skip(f"tileiras came from {toolchain.source}")
    assert toolchain.tileiras.name == "tileiras"
    assert (toolchain.tileiras.parent / "ptxas").exists()
    assert toolchain.disasm is not None and toolchain.disasm.name == "tileirdisasm"
    assert dict(toolchain.wheel_versions)["nvidia-cuda-tileiras"].startswith("13.")


def test_real_tileiras_reads_13_3_and_13_4(toolchain: Toolchain) -> None:
    info = tool_info(toolchain)
    assert V13_3 in info.versions and V13_4 in info.versions
    assert negotiate(toolchain) == V13_4
    assert negotiate(toolchain, V13_3) == V13_3


def test_override_wins_and_keeps_its_own_toolkit(tmp_path: Path) -> None:
    tool = fake_tool(tmp_path / "cuda" / "bin" / "tileiras", "exit 0\n")
    env = {"CUTILE_TILEIRAS": str(tool), "CUDA_HOME": str(tmp_path / "cuda"),
           "CUDA_PATH": "/elsewhere", "PATH": ""}
    tc = find_toolchain(env)
    assert tc.source == "CUTILE_TILEIRAS" and tc.tileiras == tool.resolve()
    run_env = tc.environment(env)
    assert run_env["CUDA_HOME"] == str(tmp_path / "cuda")  # tileiras lives there: keep it
    assert "CUDA_PATH" not in run_env  # another toolkit: removed


def test_wheel_tileiras_runs_without_toolkit_variables(toolchain: Toolchain) -> None:
    env = {"CUDA_HOME": "/usr/local/cuda-13.0", "CUDA_ROOT": "/x", "CUDA_PATH": "/y", "A": "1"}
    run_env = toolchain.environment(env)
    assert run_env == {"A": "1"} or toolchain.source == "CUTILE_TILEIRAS"


def test_bad_override_is_ct501(tmp_path: Path) -> None:
    with pytest.raises(CompileError) as err:
        find_toolchain({"CUTILE_TILEIRAS": str(tmp_path / "nope")})
    assert err.value.diagnostics[0].code == "CT501"
    assert "CUTILE_TILEIRAS" in str(err.value)


def test_missing_everywhere_is_ct501(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(discover, "wheel_bin_dir", lambda: None)
    with pytest.raises(CompileError) as err:
        find_toolchain({"PATH": str(tmp_path)})
    diag = err.value.diagnostics[0]
    assert diag.code == "CT501"
    for place in ("CUTILE_TILEIRAS", "wheel", "PATH", "CUDA_HOME"):
        assert place in diag.message
    assert "nvidia-cuda-tileiras==" in diag.message


def test_path_then_cuda_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(discover, "wheel_bin_dir", lambda: None)
    home_tool = fake_tool(tmp_path / "home" / "bin" / "tileiras", "exit 0\n")
    tc = find_toolchain({"PATH": "", "CUDA_HOME": str(tmp_path / "home")})
    assert tc.source == "CUDA_HOME" and tc.tileiras == home_tool.resolve()
    assert tc.kept_vars == ("CUDA_HOME",)
    path_tool = fake_tool(tmp_path / "p" / "tileiras", "exit 0\n")
    tc = find_toolchain({"PATH": str(path_tool.parent), "CUDA_HOME": str(tmp_path / "home")})
    assert tc.source == "PATH" and tc.kept_vars == ()


def test_old_tileiras_is_ct502(tmp_path: Path) -> None:
    tool = fake_tool(tmp_path / "tileiras",
                     'case "$1" in --list-versions) printf "13.1\\n13.2\\n";; --version) '
                     'echo "Cuda compilation tools, release 13.2, V13.2.51";; esac\n')
    tc = find_toolchain({"CUTILE_TILEIRAS": str(tool), "PATH": os.environ.get("PATH", "")})
    with pytest.raises(CompileError) as err:
        negotiate(tc)
    diag = err.value.diagnostics[0]
    assert diag.code == "CT502"
    assert "13.2.51" in diag.message and "13.1, 13.2" in diag.message and "13.4" in diag.message
