"""The compiler's import graph stays layered (scripts/import_cycles.py, imports inside functions
and under `if TYPE_CHECKING:` counted): the frontend's evaluator core sits above its topic
modules, the lowering's op-family modules see the lowerer through `lower/context.py`, and no
module of either imports a private name of another."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import import_cycles  # noqa: E402

EDGES = import_cycles.graph(nested=True, typing=True)
FRONTEND = "cutile.compiler.frontend"
LOWER = "cutile.compiler.lower"


def _below(package: str, above: set[str]) -> list[tuple[str, set[str]]]:
    """The modules of `package` (outside `above`) that import a module of `above`."""
    return [(m, targets & above) for m, targets in EDGES.items()
            if m.startswith(package + ".") and m not in above and targets & above]


def test_no_import_cycle_in_the_compiler() -> None:
    comps = import_cycles.components(EDGES)
    assert [c for c in comps if any(m.startswith("cutile.compiler") for m in c)] == []


def test_frontend_topic_modules_sit_below_the_core() -> None:
    above = {f"{FRONTEND}.core", f"{FRONTEND}.function", FRONTEND, "cutile.compiler.api",
             "cutile.compiler.analysis", "cutile.compiler.unit"}
    assert _below(FRONTEND, above) == []


def test_lowering_helpers_do_not_import_the_lowerer() -> None:
    assert _below(LOWER, {f"{LOWER}.emit", LOWER}) == []


@pytest.mark.parametrize("folder", ["compiler/frontend", "compiler/lower"])
def test_no_module_imports_a_private_name(folder: str) -> None:
    found = []
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{path.name}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith("_")]
    assert found == []


def test_from_package_import_submodule_is_no_edge_to_the_package() -> None:
    """`from . import arith` needs the module arith, not what the package's __init__ holds
    (which, for the lowering, names emit under TYPE_CHECKING)."""
    assert f"{LOWER}.arith" in EDGES[f"{LOWER}.pointers"]
    assert LOWER not in EDGES[f"{LOWER}.pointers"]
