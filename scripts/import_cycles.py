"""Import cycles among cutile's modules: the strongly connected components of the graph of
module-level imports (`if TYPE_CHECKING:` blocks left out: they never run), optionally with
the imports inside functions too (`--all`: they run later, but still tie the modules together).
`from pkg import a` is an edge to the module `pkg.a` where that is a module, and to `pkg`
otherwise (`from . import arith` needs nothing of the package's `__init__`).

    python scripts/import_cycles.py [--all] [--typing] [--package runtime] [--max N]

Prints each component of two or more modules, largest first, and exits 1 when the largest has
more than `--max` modules (the check tests/test_import_cycles.py runs).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("runtime", "compiler", "reader", "diagnostics", "checker", "lsp")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["cutile", *parts])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


_BLOCKS = (ast.With, ast.For, ast.While)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _imports(body: list[ast.stmt], nested: bool, typing: bool = False
             ) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported (and, `nested`, those in
    function and class bodies too; `typing`, those under `if TYPE_CHECKING:`)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if typing or not _is_type_checking(node.test):
                yield from _imports(node.body, nested, typing)
            yield from _imports(node.orelse, nested, typing)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _imports(part, nested, typing)
        elif isinstance(node, _BLOCKS) or (nested and isinstance(node, _DEFINITIONS)):
            yield from _imports(node.body, nested, typing)


def _targets(node: ast.Import | ast.ImportFrom, here: str, is_package: bool,
             modules: set[str]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = here if is_package else here.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        prefix = (f"{base}.{node.module}" if node.module else base) if node.level else (
            node.module or "")
        names = [f"{prefix}.{a.name}" for a in node.names]
        if not all(name in modules for name in names):  # a name the package itself defines
            names.insert(0, prefix)
    for name in names:
        while name and name not in modules:  # `from .x import f`: the module x
            name = name.rpartition(".")[0]
        if name and name != here:
            yield name


def graph(nested: bool, typing: bool = False) -> dict[str, set[str]]:
    files = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    modules = set(files)
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        edges[name] = {t for node in _imports(tree.body, nested, typing)
                       for t in _targets(node, name, is_package, modules)}
    return edges


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), those of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found, key=len, reverse=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="count imports inside functions too")
    ap.add_argument("--typing", action="store_true",
                    help="count the imports under `if TYPE_CHECKING:` too")
    ap.add_argument("--package", default="", help="only components inside cutile.<package>")
    ap.add_argument("--max", type=int, default=None, help="fail above this component size")
    opts = ap.parse_args(argv)
    prefix = f"cutile.{opts.package}" if opts.package else "cutile"
    comps = [c for c in components(graph(opts.all, opts.typing))
             if all(m.startswith(prefix) for m in c)]
    for comp in comps:
        print(f"{len(comp)} modules: {' '.join(m.removeprefix('cutile.') for m in comp)}")
    largest = len(comps[0]) if comps else 0
    print(f"largest: {largest}")
    return 1 if opts.max is not None and largest > opts.max else 0


if __name__ == "__main__":
    sys.exit(main())
