"""The glue API: frontend + host analysis in one parse, per-file isolation of internal errors,
editor-style configuration tables."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from checker_fixtures import BAD_SIGNATURE, CLEAN, Runner, write

from cutile.checker import analyze
from cutile.checker.analyze import analyze_paths, analyze_source, analyze_stdin
from cutile.checker.config import Config, Overrides
from cutile.checker.host import ProjectIndex
from cutile.diagnostics.diagnostic import Diagnostic, Severity
from cutile.reader.source import ModuleInfo

USE_AFTER_MOVE = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))


def main() -> None:
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32)
    p = z.partition((128,))
    print(z)
    p, x = add(p, x).sync()
'''


def test_host_findings_come_through_with_notes() -> None:
    (diag,) = analyze_source(USE_AFTER_MOVE, "h.py")
    assert (diag.code, diag.span.line, diag.span.col) == ("CT301", 14, 10)
    assert [n.span.line for n in diag.notes if n.span] == [13]


def test_host_finding_can_be_suppressed() -> None:
    source = USE_AFTER_MOVE.replace("print(z)", "print(z)  # cutile: ignore[use-after-move]")
    assert analyze_source(source, "h.py") == []


def test_frontend_and_host_findings_together() -> None:
    source = USE_AFTER_MOVE + "\n\n" + BAD_SIGNATURE.split("\n\n\n", 1)[1]
    found = [(d.code, d.span.line) for d in analyze_source(source, "m.py")]
    assert found == [("CT301", 14), ("CT107", 19)]


def test_the_module_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One `ast.parse` of the file, and the frontend and the host analysis share its result."""
    parses: list[str] = []
    real_parse = ast.parse

    def counting_parse(source: str, filename: str = "<unknown>", *args: Any,
                       **kwargs: Any) -> ast.AST:
        parses.append(source)
        tree: ast.AST = real_parse(source, filename, *args, **kwargs)
        return tree

    seen: dict[str, list[int]] = {"frontend": [], "host": []}
    real_module, real_host = analyze.check_module, analyze.check_host

    def frontend(info: ModuleInfo) -> list[Diagnostic]:
        seen["frontend"].append(id(info))
        return real_module(info)

    def host(info: ModuleInfo, project: ProjectIndex | None = None) -> list[Diagnostic]:
        seen["host"].append(id(info))
        return real_host(info, project)

    monkeypatch.setattr(ast, "parse", counting_parse)
    monkeypatch.setattr(analyze, "check_module", frontend)
    monkeypatch.setattr(analyze, "check_host", host)
    assert [d.code for d in analyze_source(USE_AFTER_MOVE, "h.py")] == ["CT301"]
    assert parses.count(USE_AFTER_MOVE) == 1
    assert len(seen["frontend"]) == 1 and seen["host"] == seen["frontend"]


def test_checking_does_not_load_libcst() -> None:
    """The checker and the compiler read Python's ast; libcst stays with the editor's fixes."""
    out = _after_a_check("[d.code for d in found], 'libcst' in sys.modules")
    assert out.split() == ["['CT301']", "False"]


def _after_a_check(shown: str) -> str:
    """What `print(shown)` prints in a fresh process that has checked one file (`found`)."""
    code = ("import sys\n"
            "from cutile.checker.analyze import analyze_source\n"
            f"found = analyze_source({USE_AFTER_MOVE!r}, 'h.py')\n"
            f"print({shown})\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


def test_checking_does_not_load_the_toolchain() -> None:
    """tileiras discovery and the cubin cache are the JIT's: a check never imports them."""
    out = _after_a_check("sorted(m for m in sys.modules if '.toolchain' in m)")
    assert out.split() == ["[]"]


def test_internal_error_in_one_file_is_ct999_and_the_rest_is_checked(
        monkeypatch: pytest.MonkeyPatch, cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {"a.py": BAD_SIGNATURE, "boom.py": CLEAN, "c.py": BAD_SIGNATURE})
    real = analyze.check_module

    def flaky(info: ModuleInfo) -> list[Diagnostic]:
        if info.path.endswith("boom.py"):
            raise KeyError("no such tile")
        return real(info)

    monkeypatch.setattr(analyze, "check_module", flaky)
    result = cli("-q", "--exit-zero")
    assert result.code == 2  # a crash never passes, not even with --exit-zero
    lines = result.out.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["a.py", "boom.py", "c.py"]
    assert lines[1].startswith("boom.py:1:1: CT999 [error] internal error in cutile: KeyError: "
                               "'no such tile' (at test_check_analyze.py:")


def test_ct999_cannot_be_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write(tmp_path, {"boom.py": CLEAN})

    def broken(info: object) -> list[Diagnostic]:
        raise RuntimeError("bug")

    monkeypatch.setattr(analyze, "check_module", broken)
    report = analyze_paths([str(tmp_path)], Overrides(ignore=("CT9",)))
    assert [d.code for d in report.diagnostics] == ["CT999"] and report.broken


def test_report_knows_failed_and_broken(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": BAD_SIGNATURE, "pyproject.toml": '[tool.cutile-check]\n'
                     'severity = {CT107 = "warning"}\n'})
    report = analyze_paths([str(tmp_path)])
    assert [d.severity for d in report.diagnostics] == [Severity.WARNING]
    assert not report.failed and not report.broken
    assert report.files == [str(tmp_path / "a.py")]
    assert report.sources[str(tmp_path / "a.py")] == BAD_SIGNATURE


def test_coding_cookie_is_honoured(tmp_path: Path) -> None:
    text = "# -*- coding: latin-1 -*-\n" + BAD_SIGNATURE.replace("import cutile as ct",
                                                                "import cutile as ct  # café")
    (tmp_path / "k.py").write_bytes(text.encode("latin-1"))
    report = analyze_paths([str(tmp_path / "k.py")])
    assert [d.code for d in report.diagnostics] == ["CT107"]


@dataclass(frozen=True)
class EditorConfig:
    """The shape of the language server's per-file configuration."""

    path: Path | None
    table: dict[str, object] = field(default_factory=dict)


def test_editor_table_config(tmp_path: Path) -> None:
    table = EditorConfig(tmp_path / "pyproject.toml", {"ignore": ["CT1"]})
    assert analyze_source(BAD_SIGNATURE, str(tmp_path / "k.py"), table) == []
    assert [d.code for d in analyze_source(BAD_SIGNATURE, "k.py", EditorConfig(None))] == [
        "CT107"]
    assert analyze_source(BAD_SIGNATURE, "k.py", Config(ignore=("CT107",))) == []


def test_stdin_report_uses_the_config_of_its_file_name(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"sub/pyproject.toml": '[tool.cutile-check]\nignore = ["CT107"]\n'})
    monkeypatch.chdir(tmp_path)
    assert analyze_stdin(BAD_SIGNATURE, os.path.join("sub", "k.py")).diagnostics == []
    report = analyze_stdin(BAD_SIGNATURE, "k.py")
    assert [d.code for d in report.diagnostics] == ["CT107"]
    assert report.sources == {"k.py": BAD_SIGNATURE}


def test_parallel_run_matches_the_sequential_one(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"m{i}.py": (BAD_SIGNATURE if i % 2 else USE_AFTER_MOVE) for i in range(9)}
    files["boom.py"] = CLEAN
    write(tmp_path, files)
    real = analyze.check_module

    def flaky(info: ModuleInfo) -> list[Diagnostic]:
        if info.path.endswith("boom.py"):
            raise KeyError("no such tile")
        return real(info)

    monkeypatch.setattr(analyze, "check_module", flaky)  # forked workers inherit the patch
    one = analyze_paths([str(tmp_path)], Overrides(jobs=1))
    two = analyze_paths([str(tmp_path)], Overrides(jobs=2))
    assert one.diagnostics == two.diagnostics and one.files == two.files
    assert one.sources == two.sources
    assert sorted({d.code for d in two.diagnostics}) == ["CT107", "CT301", "CT999"]
    assert two.broken


def test_jobs_flag(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path, {f"k{i}.py": BAD_SIGNATURE for i in range(5)})
    result = cli("-q", "--jobs", "2")
    assert result.code == 1 and len(result.out.splitlines()) == 5


# After `if C: lo = h` on a Const bool, `lo` (0 or an i32 tile) joins to the one tile type
# both branches take, so the loop after it is followed at edit time and its CT212 reported, as
# the JIT reports it with C=True.
LOOP_AFTER_CONST_IF = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, (1, "B")]], q: Tensor[f32, (-1, -1)], B: Const[int],
      C: Const[bool]) -> None:
    h, _ = z.tile_index()
    pq = q.partition((1, B))
    lo = 0
    if C:
        lo = h
    for i in range(lo, ct.num_tiles(pq, 1)):
        _ = pq.load((0, i))
    z.store(ct.zeros((1, B), f32))
'''


def test_the_loop_after_a_const_if_fails_at_run_time(tmp_path: Path) -> None:
    """The JIT's side: specialized with C=True, the loop changes `_`'s type (CT212)."""
    import importlib.util

    import numpy as np

    import cutile as ct
    from cutile.runtime import context
    from cutile.runtime.backends.interpreter import InterpreterBackend

    path = tmp_path / "loop_after_const_if.py"
    path.write_text(LOOP_AFTER_CONST_IF)
    spec = importlib.util.spec_from_file_location("loop_after_const_if", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    old = context.set_backend(InterpreterBackend())
    try:
        z = ct.zeros((2, 64), ct.f32).partition((1, 64))
        with pytest.raises(ct.CutileError, match="CT212"):
            mod.k(z, ct.from_numpy(np.zeros((2, 64), np.float32)), C=True).sync()
    finally:
        context.set_backend(old)


def test_the_loop_after_a_const_if_is_checked() -> None:
    """The edit-time side: the join of `0` and `h` is an i32 scalar whatever C is, so the loop
    is followed and the same CT212 is reported."""
    found = analyze_source(LOOP_AFTER_CONST_IF, "loop_after_const_if.py")
    assert [d.code for d in found] == ["CT212"]


CONST_IF_NUMBERS = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def k(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int],
      C: Const[bool]) -> None:
    pad = 0
    if C:
        pad = 1.5
    z.store(x.load_tile((B,), (ct.block_id(0),), padding=pad))
'''


def test_a_const_if_between_numbers_stays_a_number() -> None:
    """Numbers of two kinds joined after a Const if are not made a tile: either value is a
    compile-time padding once C is known, so nothing is reported."""
    assert analyze_source(CONST_IF_NUMBERS, "const_if_numbers.py") == []
