"""Kernels of other project modules, found by parsing their files (never importing them)."""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from pathlib import Path

from ...compiler.frontend.params import read_signature
from ...diagnostics.diagnostic import Diagnostic
from ...reader.imports import PACKAGE, ModuleFinder, is_cutile
from ...reader.source import ModuleInfo, parse_module
from .autotune import module_tuned
from .values import IntVal, KernelVal, LiteralVal, ModuleVal, TupleVal, Value

_MAX_REEXPORT_DEPTH = 8


class ProjectIndex:
    """Finds and caches the modules of a project.

    Imports resolve as the reader's `ModuleFinder` finds modules (reader/imports.py): from the
    importing file's folder, its top package's parent, its project and `root` (e.g. the folder
    of a `--config` file). `sources` overrides file contents, e.g. unsaved editor buffers.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None,
                 sources: Mapping[str, str] | None = None) -> None:
        # the reader's finder: the names a module imports resolve as the JIT resolves them
        self.finder = ModuleFinder(root, sources)
        self._infos: dict[Path, ModuleInfo | None] = {}
        self._kernels: dict[Path, dict[str, KernelVal]] = {}

    def module_info(self, path: Path) -> ModuleInfo | None:
        path = path.resolve()
        if path not in self._infos:
            self._infos[path] = self._parse(path)
        return self._infos[path]

    def _parse(self, path: Path) -> ModuleInfo | None:
        source = self.finder.read(path)
        if source is None:
            return None
        info = parse_module(source, str(path), self.finder)
        return None if isinstance(info, Diagnostic) else info

    def kernel(self, path: Path, name: str, depth: int = 0) -> KernelVal | None:
        """The kernel a module defines or re-exports under `name` (following only that name)."""
        path = path.resolve()
        info = self.module_info(path)
        if info is None or depth > _MAX_REEXPORT_DEPTH:
            return None
        if path not in self._kernels:
            self._kernels[path] = local_kernels(info)
        if name in self._kernels[path]:
            return self._kernels[path][name]
        for node in _top_level_imports(info):
            if isinstance(node, ast.ImportFrom) and name in _from_names(node):
                found = self._from_import(info, node, depth + 1, only=name).get(name)
                return found if isinstance(found, KernelVal) else None
        return None

    def module_globals(self, info: ModuleInfo) -> dict[str, Value]:
        """What host code of `info` sees at module level: kernels, project modules, constants."""
        out: dict[str, Value] = {n: _constant(v) for n, v in info.constants.items()}
        out.update(self._imports(info, 0))
        out.update(local_kernels(info))
        return out

    def _imports(self, info: ModuleInfo, depth: int) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for node in _top_level_imports(info):
            out.update(self.import_bindings(info, node, depth))
        return out

    def import_bindings(self, info: ModuleInfo, node: ast.Import | ast.ImportFrom,
                        depth: int = 0) -> dict[str, Value]:
        """The kernels and project modules one import statement binds, by local name."""
        if isinstance(node, ast.ImportFrom):
            return self._from_import(info, node, depth)
        return self._import(info, node)

    def _import(self, info: ModuleInfo, node: ast.Import) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for alias in node.names:
            name = alias.name
            if (alias.asname is None and "." in name) or name.split(".")[0] == PACKAGE:
                continue  # `import a.b` binds `a`, a package rather than the kernel module
            path = self.finder.locate(info.path, name, 0)
            if path is not None:
                out[alias.asname or name] = ModuleVal(str(path))
        return out

    def _from_import(self, info: ModuleInfo, node: ast.ImportFrom, depth: int,
                     only: str | None = None) -> dict[str, Value]:
        if any(alias.name == "*" for alias in node.names):
            return {}
        module = node.module
        level = node.level
        if is_cutile(module, level):
            return {}  # cutile itself: its names are the DSL, not project kernels
        out: dict[str, Value] = {}
        for alias in node.names:
            name = alias.name
            local = alias.asname or name
            if only is not None and local != only:
                continue
            sub = self.finder.locate(info.path, f"{module}.{name}" if module else name, level)
            if sub is not None:
                out[local] = ModuleVal(str(sub))
                continue
            path = self.finder.locate(info.path, module, level) if module or level else None
            if path is not None and path != Path(info.path).resolve():
                kernel = self.kernel(path, name, depth)
                if kernel is not None:
                    out[local] = kernel
        return out


def local_kernels(info: ModuleInfo) -> dict[str, KernelVal]:
    """The module's own `@ct.kernel`s; a signature with errors gives no argument checks."""
    out: dict[str, KernelVal] = {}
    for fn in info.kernels:
        sig, diags = read_signature(info, fn)
        out[fn.name] = KernelVal(fn.name, None if diags else sig)
    out.update(module_tuned(info, out))  # and the autotuned ones, launched as their kernel
    return out


def _top_level_imports(info: ModuleInfo) -> list[ast.Import | ast.ImportFrom]:
    return [stmt for stmt in info.tree.body if isinstance(stmt, (ast.Import, ast.ImportFrom))]


def _from_names(node: ast.ImportFrom) -> set[str]:
    return {a.asname or a.name for a in node.names if a.name != "*"}


def _constant(value: object) -> Value:
    """A module constant (reader/constants.py: numbers, strings, tuples of them, whatever
    constant expression computed them) as host code sees it: `SHAPE = (M, N)` is a shape."""
    if type(value) is int:
        return IntVal(value)
    if isinstance(value, tuple):
        return TupleVal(tuple(_constant(v) for v in value))
    return LiteralVal(value)
