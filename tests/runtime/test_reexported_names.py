"""cutile names a kernel module gets from other modules of the project (`from common import *`,
re-exports, packages, cycles): resolved by reading those modules' source, the same for the
checker and the JIT; what no static read can follow is CT103 saying where the name comes from."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import cutile as ct
from cutile.checker.analyze import analyze_source
from cutile.diagnostics.errors import CutileError
from cutile.reader.source import ModuleInfo, read_module

COMMON = """\
import cutile as ct
from cutile import Const, Mut, Tensor, f32
"""

KERNEL = """\
@ct.kernel
def k(z: Mut[Tensor[f32, ("B",)]], B: Const[int]) -> None:
    z.store(ct.zeros((B,), f32))
"""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path whose modules are forgotten afterwards."""
    before = set(sys.modules)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        del sys.modules[name]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


Found = list[tuple[str, int, str]]


def findings(root: Path, module: str) -> tuple[Found, Found]:
    """(checker, run) findings of kernel `k` in `module`: code, line, message."""
    path = root / (module.replace(".", "/") + ".py")
    checker = [(d.code, d.span.line, d.message)
               for d in analyze_source(path.read_text(), str(path))]
    kernel = importlib.import_module(module).k
    try:
        kernel.module()
        kernel.ensure_valid()
        run: Found = []
    except CutileError as err:
        run = [(d.code, d.span.line, d.message) for d in err.diagnostics]
    return checker, run


def test_star_import_of_a_project_module_launches(project: Path) -> None:
    write(project, {"common_a.py": COMMON, "kern_a.py": "from common_a import *\n\n" + KERNEL})
    assert findings(project, "kern_a") == ([], [])
    k = importlib.import_module("kern_a").k
    z, = k(ct.zeros((100,), ct.f32).partition((64,))).sync()
    assert z.unpartition().numpy()[:2].tolist() == [0.0, 0.0]


def test_reexported_names_in_annotations(project: Path) -> None:
    write(project, {"common_b.py": COMMON,
                    "kern_b.py": "import cutile as ct\nfrom common_b import Const, Mut, Tensor, f32"
                                 " as f32\n\n" + KERNEL})
    assert findings(project, "kern_b") == ([], [])


def test_two_levels_and_all_respected(project: Path) -> None:
    write(project, {
        "base_c.py": COMMON,
        "mid_c.py": "from base_c import *\n__all__ = ['ct', 'Tensor', 'f32', 'Const']\n",
        "kern_c.py": "from __future__ import annotations\nfrom mid_c import *\n\n" + KERNEL,
    })
    checker, run = findings(project, "kern_c")
    assert checker == run
    assert [(c, line) for c, line, _ in run] == [("CT107", 5)]  # Mut is not in mid's __all__


def test_relative_imports_in_a_package(project: Path) -> None:
    write(project, {
        "pkg_d/__init__.py": "",
        "pkg_d/common.py": COMMON,
        "pkg_d/mid.py": "from .common import *\n",
        "pkg_d/kern.py": "from .mid import Const, Mut, Tensor, ct, f32\n\n" + KERNEL,
    })
    assert findings(project, "pkg_d.kern") == ([], [])


def test_circular_star_imports_resolve(project: Path) -> None:
    write(project, {
        "cyc_e.py": "from kern_e import *\n",
        "kern_e.py": COMMON + "from cyc_e import *\n\n" + KERNEL,
    })
    assert findings(project, "kern_e") == ([], [])


def test_dynamic_names_say_where_they_come_from(project: Path) -> None:
    write(project, {
        "dyn_f.py": "import importlib\n_ct = importlib.import_module('cutile')\n"
                    "Mut = getattr(_ct, 'Mut')\nct = _ct\n"
                    "try:\n    from cutile import Const, Tensor, f32\nexcept ImportError:\n"
                    "    raise\n",
        "kern_f.py": "import cutile as ct\nfrom dyn_f import Const, Mut, Tensor, f32\n\n" + KERNEL,
        "deco_f.py": "from cutile import Const, Mut, Tensor, f32\nfrom dyn_f import ct\n\n"
                     + KERNEL,
    })
    checker, run = findings(project, "kern_f")
    assert checker == run
    assert run[0][:2] == ("CT103", 5)
    assert "'Mut' comes from module 'dyn_f', which cutile cannot read" in run[0][2]
    assert "'Const' comes from module 'dyn_f'" in run[1][2]
    checker, run = findings(project, "deco_f")
    assert checker == run  # was a false CT906 at run time, nothing from the checker
    assert [(c, line) for c, line, _ in run] == [("CT103", 4)]
    assert "'ct' comes from module 'dyn_f'" in run[0][2]


def test_unreadable_star_import_names_the_module(tmp_path: Path) -> None:
    path = tmp_path / "kern_g.py"
    text = "from no_such_module_g import *\n\n" + KERNEL
    found = analyze_source(text, str(path))
    assert [(d.code, d.span.line) for d in found] == [("CT103", 3)]
    assert "may come from `from no_such_module_g import *`" in found[0].message


def test_kernel_without_a_visible_decorator_is_not_ct906(project: Path) -> None:
    text = COMMON + "kern = getattr(ct, 'kernel')\n\n\n@kern\n" + KERNEL[len("@ct.kernel\n"):]
    write(project, {"kern_h.py": text})
    _, run = findings(project, "kern_h")
    assert [(c, line) for c, line, _ in run] == [("CT103", 7)]
    assert "cannot see that 'k' is a kernel" in run[0][2]


def test_cutile_names_bound_by_assignment_launch(project: Path) -> None:
    """`kern = ct.kernel` (and a dtype, and an op) at module level name cutile's objects, as
    an import would; the checker and the run agree, also in a module that imports them."""
    aliases = "kern = ct.kernel\nF = ct.f32\nfill = ct.zeros\n"
    body = ('@kern\ndef k(z: Mut[Tensor[F, ("B",)]], B: Const[int]) -> None:\n'
            "    z.store(fill((B,), F) + 1.0)\n")
    write(project, {"kern_i.py": COMMON + aliases + "\n\n" + body,
                    "base_j.py": COMMON + aliases,
                    "kern_j.py": "from base_j import Const, F, Mut, Tensor, fill, kern\n\n\n"
                                 + body})
    for module in ("kern_i", "kern_j"):
        assert findings(project, module) == ([], [])
        z, = importlib.import_module(module).k(ct.zeros((100,), ct.f32).partition((64,))).sync()
        assert z.unpartition().numpy().tolist() == [1.0] * 100


def test_a_changed_dependency_is_read_again(tmp_path: Path) -> None:
    common = tmp_path / "common_i.py"
    common.write_text("from cutile import Tensor\n")
    path = str(tmp_path / "kern_i.py")
    text = "from common_i import Mut\n"
    first = read_module(text, path)
    assert isinstance(first, ModuleInfo) and first.aliases["Mut"] == "common_i.Mut"
    common.write_text("from cutile import Tensor, Mut\n")
    os.utime(common, ns=(1, 1))  # another version, whatever the clock's resolution
    again = read_module(text, path)
    assert isinstance(again, ModuleInfo) and again.aliases["Mut"] == "cutile.Mut"
