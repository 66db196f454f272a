"""Kernels of other project modules, found by parsing their files (never importing them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import libcst as cst

from ...compiler.diagnostics import Diagnostic
from ...compiler.frontend.module import ModuleInfo, dotted_name, parse_module
from ...compiler.frontend.signature import read_signature
from .values import IntVal, KernelVal, ModuleVal, Value

_MAX_REEXPORT_DEPTH = 8


class ProjectIndex:
    """Finds and caches the modules of a project.

    `root` is the project root (where absolute imports start besides the importing file's own
    directory); `sources` overrides file contents, e.g. unsaved editor buffers.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None,
                 sources: Mapping[str, str] | None = None) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.sources = {str(Path(p).resolve()): s for p, s in (sources or {}).items()}
        self._infos: dict[Path, ModuleInfo | None] = {}
        self._kernels: dict[Path, dict[str, KernelVal]] = {}

    def module_info(self, path: Path) -> ModuleInfo | None:
        path = path.resolve()
        if path not in self._infos:
            self._infos[path] = self._parse(path)
        return self._infos[path]

    def _parse(self, path: Path) -> ModuleInfo | None:
        source = self.sources.get(str(path))
        if source is None:
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        info = parse_module(source, str(path))
        return None if isinstance(info, Diagnostic) else info

    def resolve(self, importer: str, module: str | None, level: int) -> Path | None:
        """The file of `module` imported from `importer` (a package's `__init__.py`)."""
        here = Path(importer).resolve().parent
        if level > 0:
            base = here
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = [here] + ([self.root, self.root / "src"] if self.root else [])
        parts = module.split(".") if module else []
        for base in bases:
            target = base.joinpath(*parts)
            for candidate in (target.with_suffix(".py") if parts else None,
                              target / "__init__.py"):
                if candidate is not None and candidate.is_file():
                    return candidate.resolve()
        return None

    def kernels(self, path: Path, depth: int = 0) -> dict[str, KernelVal]:
        """The kernels a module defines or re-exports, by the name it exports them under."""
        path = path.resolve()
        if path in self._kernels:
            return self._kernels[path]
        self._kernels[path] = {}  # guards import cycles
        info = self.module_info(path)
        found: dict[str, KernelVal] = {}
        if info is not None:
            found.update(local_kernels(info))
            if depth < _MAX_REEXPORT_DEPTH:
                for local, value in self._imports(info, depth + 1).items():
                    if isinstance(value, KernelVal):
                        found.setdefault(local, value)
        self._kernels[path] = found
        return found

    def module_globals(self, info: ModuleInfo) -> dict[str, Value]:
        """What host code of `info` sees at module level: kernels, project modules, constants."""
        out: dict[str, Value] = {n: IntVal(v) for n, v in info.constants.items()
                                 if isinstance(v, int) and not isinstance(v, bool)}
        out.update(self._imports(info, 0))
        out.update(local_kernels(info))
        return out

    def _imports(self, info: ModuleInfo, depth: int) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for stmt in info.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    out.update(self.import_bindings(info, small, depth))
        return out

    def import_bindings(self, info: ModuleInfo, node: cst.Import | cst.ImportFrom,
                        depth: int = 0) -> dict[str, Value]:
        """The kernels and project modules one import statement binds, by local name."""
        if isinstance(node, cst.ImportFrom):
            return self._from_import(info, node, depth)
        return self._import(info, node)

    def _import(self, info: ModuleInfo, node: cst.Import) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None or (alias.asname is None and "." in name):
                continue  # `import a.b` binds `a`, a package rather than the kernel module
            path = self.resolve(info.path, name, 0)
            if path is not None:
                out[alias.evaluated_alias or name] = ModuleVal(str(path))
        return out

    def _from_import(self, info: ModuleInfo, node: cst.ImportFrom,
                     depth: int) -> dict[str, Value]:
        if isinstance(node.names, cst.ImportStar):
            return {}
        module = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        out: dict[str, Value] = {}
        for alias in node.names:
            name = alias.evaluated_name
            local = alias.evaluated_alias or name
            sub = self.resolve(info.path, f"{module}.{name}" if module else name, level)
            if sub is not None:
                out[local] = ModuleVal(str(sub))
                continue
            path = self.resolve(info.path, module, level) if module or level else None
            if path is not None and path != Path(info.path).resolve():
                kernel = self.kernels(path, depth).get(name)
                if kernel is not None:
                    out[local] = kernel
        return out


def local_kernels(info: ModuleInfo) -> dict[str, KernelVal]:
    """The module's own `@ct.kernel`s; a signature with errors gives no argument checks."""
    out: dict[str, KernelVal] = {}
    for fn in info.kernels:
        sig, diags = read_signature(info, fn)
        out[fn.name] = KernelVal(fn.name, None if diags else sig)
    return out
