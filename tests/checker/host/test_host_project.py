"""Kernels imported from other modules of the project are found by parsing, never importing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostcheck import expected, found, run

from cutile.checker.host import ProjectIndex

KERNELS = '''\
import cutile as ct
from cutile import Mut, Tensor, f32

raise SystemExit("the checker must never run this file")

@ct.kernel
def scale(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))
'''

USER = '''\
import cutile as ct
from cutile import f32
{imports}

x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((64,))
{call}(z, x).sync()  # E: CT401
{call}(ct.zeros((1024,), f32).partition((128,)), x)  # E: CT305
'''


def _check(tmp_path: Path, imports: str, call: str, main: str = "main.py") -> None:
    source = USER.format(imports=imports, call=call)
    path = tmp_path / main
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    diags = run(source, str(path), ProjectIndex(tmp_path))
    assert found(diags) == expected(source), diags


def test_from_import(tmp_path: Path) -> None:
    (tmp_path / "mykernels.py").write_text(KERNELS)
    _check(tmp_path, "from mykernels import scale", "scale")


def test_import_as_alias(tmp_path: Path) -> None:
    (tmp_path / "mykernels.py").write_text(KERNELS)
    _check(tmp_path, "from mykernels import scale as sc", "sc")
    _check(tmp_path, "import mykernels as mk", "mk.scale")


def test_relative_import_and_reexport(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "__init__.py").write_text("from .kernels import scale\n")
    (pkg / "ops" / "kernels.py").write_text(KERNELS)
    _check(tmp_path, "from .ops.kernels import scale", "scale", "pkg/main.py")
    _check(tmp_path, "from pkg.ops import scale", "scale")
    _check(tmp_path, "from pkg import ops", "ops.scale")


def test_import_inside_a_function(tmp_path: Path) -> None:
    (tmp_path / "mykernels.py").write_text(KERNELS)
    source = '''\
import cutile as ct
from cutile import f32

def main():
    from mykernels import scale
    x = ct.ones((1024,), f32)
    scale(ct.zeros((1024,), f32).partition((128,)), x)  # E: CT305
'''
    path = tmp_path / "main.py"
    diags = run(source, str(path), ProjectIndex(tmp_path))
    assert found(diags) == expected(source)


def test_unknown_modules_stay_silent(tmp_path: Path) -> None:
    source = '''\
import cutile as ct
from cutile import f32
from elsewhere import scale

x = ct.ones((1024,), f32)
scale(ct.zeros((1024,), f32), x)
'''
    assert run(source, str(tmp_path / "main.py"), ProjectIndex(tmp_path)) == []


def test_unsaved_sources_override_files(tmp_path: Path) -> None:
    (tmp_path / "mykernels.py").write_text("")
    index = ProjectIndex(tmp_path, sources={str(tmp_path / "mykernels.py"): KERNELS})
    source = USER.format(imports="from mykernels import scale", call="scale")
    diags = run(source, str(tmp_path / "main.py"), index)
    assert found(diags) == expected(source)


def test_parsed_modules_are_cached(tmp_path: Path) -> None:
    (tmp_path / "mykernels.py").write_text(KERNELS)
    index = ProjectIndex(tmp_path)
    first = index.module_info(tmp_path / "mykernels.py")
    assert first is not None and index.module_info(tmp_path / "mykernels.py") is first


def test_absolute_imports_resolve_from_the_file_not_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `pkg/sub/main.py` imports `pkg.ops.kernels`: found from the top of its package chain,
    # with no root given, whatever the working folder
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "sub").mkdir()
    for init in (pkg, pkg / "ops", pkg / "sub"):
        (init / "__init__.py").write_text("")
    (pkg / "ops" / "kernels.py").write_text(KERNELS)
    monkeypatch.chdir(pkg / "ops")
    source = USER.format(imports="from pkg.ops.kernels import scale", call="scale")
    diags = run(source, str(pkg / "sub" / "main.py"), ProjectIndex())
    assert found(diags) == expected(source), diags
    index = ProjectIndex()
    assert index.finder.absolute_bases((pkg / "sub").resolve()) == [(pkg / "sub").resolve(),
                                                             tmp_path.resolve()]
