"""Names a module imports from other modules of the user's project, resolved by reading those
modules' source (never importing them): the checker, the language server and the JIT share it.

`from common import *`, `from .common import Mut` and chains of them bind a name to a cutile
object when the module they name binds it so (`import cutile as ct`, `from cutile import Mut`).
A name whose origin no static read can follow (a module cutile cannot find or parse, a
conditional or computed binding, a circular import) is kept as `Unread`, so that a kernel that
uses it is told where the name comes from rather than that it is unknown.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic
from .decode import UndecodableSource, read_source

if TYPE_CHECKING:
    from .source import ModuleInfo

PACKAGE = "cutile"
CIRCULAR = " (a circular import)"  # an Unread's `why` for a module still being read
Stamp = object  # what identifies one version of a file: its text (a buffer) or (mtime, size)


@dataclass(frozen=True)
class Unread:
    """Where a name comes from that cutile cannot follow: the module, and why (or "")."""

    module: str
    why: str = ""


class ModuleFinder:
    """Finds the files of a project's modules, as the checker resolves imports.

    Absolute imports resolve, whatever the working directory, from the importing file's own
    directory, the folder above its top package (walking up while folders have `__init__.py`),
    the nearest folder above it with a pyproject.toml (and its `src/`), and `root` (and its
    `src/`) when given. `sources` overrides file contents, e.g. unsaved editor buffers.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None,
                 sources: Mapping[str, str] | None = None) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.sources = {str(Path(p).resolve()): s for p, s in (sources or {}).items()}
        self._bases: dict[Path, list[Path]] = {}
        self._modules: dict[Path, tuple[Stamp, ModuleInfo | Unread]] = {}
        self._lock = threading.Lock()

    def locate(self, importer: str, module: str | None, level: int) -> Path | None:
        """The file of `module` imported from `importer` (a package's `__init__.py`)."""
        here = Path(importer).resolve().parent
        if level > 0:
            base = here
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = self.absolute_bases(here)
        parts = module.split(".") if module else []
        for base in bases:
            target = base.joinpath(*parts)
            for candidate in (target.with_suffix(".py") if parts else None,
                              target / "__init__.py"):
                if candidate is not None and (candidate.is_file() or self.buffered(candidate)):
                    return candidate.resolve()
        return None

    def absolute_bases(self, here: Path) -> list[Path]:
        """Where `import a.b` starts for a file in the folder `here` (see the class doc)."""
        if here not in self._bases:
            bases = [here, _package_parent(here)]
            project = _project_dir(here)
            for root in (project, self.root):
                if root is not None:
                    bases += [root, root / "src"]
            self._bases[here] = list(dict.fromkeys(bases))
        return self._bases[here]

    def buffered(self, path: Path) -> bool:
        """A file given as text (an editor buffer), whatever is on disk."""
        return bool(self.sources) and str(path.resolve()) in self.sources

    def read(self, path: Path) -> str | None:
        source = self.sources.get(str(path))
        if source is not None:
            return source
        try:
            return read_source(str(path))  # its coding cookie, as Python reads it
        except (OSError, UndecodableSource):
            return None

    def stamp(self, path: str | Path) -> Stamp:
        text = self.sources.get(str(path))
        if text is not None:
            return text
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def fresh(self, depends: Mapping[str, Stamp]) -> bool:
        """Whether every file a parse read is as it was then."""
        return all(self.stamp(p) == s for p, s in depends.items())

    def module(self, path: Path, name: str, parse: Callable[[str, str, ModuleFinder],
                                                          ModuleInfo | object]
               ) -> ModuleInfo | Unread:
        """The parse of a project module another imports (cached while its files are
        unchanged), or why it cannot be read. A module still being read on this thread (a
        circular import) is Unread, and what read it is not cached."""
        with self._lock:
            cached = self._modules.get(path)
        stamp = self.stamp(path)
        if cached is not None and cached[0] == stamp and (
                isinstance(cached[1], Unread) or self.fresh(cached[1].depends)):
            return cached[1]
        reading = _reading()
        if path in reading:
            return Unread(name, CIRCULAR)
        reading.add(path)
        try:
            found = self._parse(path, name, parse)
        finally:
            reading.discard(path)
        if isinstance(found, Unread) or not found.partial:  # a partial read is not kept
            with self._lock:
                self._modules[path] = (stamp, found)
        return found

    def _parse(self, path: Path, name: str,
               parse: Callable[[str, str, ModuleFinder], ModuleInfo | object]
               ) -> ModuleInfo | Unread:
        from .source import ModuleInfo

        source = self.read(path)
        if source is None:
            return Unread(name, " (its file cannot be read or decoded)")
        info = parse(source, str(path), self)
        if not isinstance(info, ModuleInfo):
            return Unread(name, " (it is not valid Python)")
        return info


_local = threading.local()


def _reading() -> set[Path]:
    if not hasattr(_local, "reading"):
        _local.reading = set()
    found: set[Path] = _local.reading
    return found


DEFAULT_FINDER = ModuleFinder()


def _package_parent(here: Path) -> Path:
    """The folder above the top package holding `here` (`here` itself outside a package)."""
    while (here / "__init__.py").is_file() and here.parent != here:
        here = here.parent
    return here


def _project_dir(here: Path) -> Path | None:
    """The nearest folder at or above `here` with a pyproject.toml."""
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return None


def cutile_names() -> list[str]:
    """What `from cutile import *` binds: the package's __all__ (the reader is part of it, so
    the package is loaded; its host API stays unloaded)."""
    return list(getattr(sys.modules.get(PACKAGE), "__all__", []))


def _shown(module: str | None, level: int) -> str:
    return "." * level + (module or "")


def is_cutile(module: str | None, level: int) -> bool:
    return level == 0 and module is not None and module.split(".")[0] == PACKAGE


def _outside_project(module: str | None, level: int) -> bool:
    """The standard library: its names are never cutile's (and `math.inf` resolves as is)."""
    return level == 0 and module is not None and module.split(".")[0] in sys.stdlib_module_names


class ImportReader:
    """Binds the names of one module's from-imports of project modules (`_scan_top_level`)."""

    def __init__(self, info: ModuleInfo, finder: ModuleFinder,
                 parse: Callable[[str, str, ModuleFinder], ModuleInfo | object]) -> None:
        self.info = info
        self.finder = finder
        self.parse = parse

    def _dependency(self, module: str | None, level: int) -> ModuleInfo | Unread | None:
        """The module's parse, why it cannot be read, or None for the standard library."""
        if _outside_project(module, level):
            return None
        shown = _shown(module, level)
        path = self.finder.locate(self.info.path, module, level)
        if path is None:
            return Unread(shown)
        if path == Path(self.info.path).resolve():
            return None  # the module imports itself: its own names are already here
        dep = self.finder.module(path, shown, self.parse)
        if isinstance(dep, Unread):
            self.info.partial |= dep.why == CIRCULAR
        else:
            self.info.partial |= dep.partial
            self.info.depends.update(dep.depends)
            self.info.depends[dep.path] = self.finder.stamp(dep.path)
        return dep

    def star(self, stmt: ast.ImportFrom) -> list[str]:
        """`from module import *`: the names it binds (those it can tell)."""
        dep = self._dependency(stmt.module, stmt.level)
        shown = _shown(stmt.module, stmt.level)
        if dep is None:
            return []
        if isinstance(dep, Unread):
            self.info.star_unread.append(dep)
            return []
        if dep.public is None and dep.public_dynamic:
            self.info.star_unread.append(Unread(shown, " (its __all__ is computed)"))
            return []
        names = dep.public if dep.public is not None else sorted(
            n for n in dep.assigned_globals if not n.startswith("_"))
        for name in names:
            self._bind(name, name, dep, shown)
        if dep.public is None:
            self.info.star_unread += [u for u in dep.star_unread
                                      if u not in self.info.star_unread]
        return list(names)

    def names(self, stmt: ast.ImportFrom) -> None:
        """`from module import a, b as c`: a and c as that module binds them."""
        module, level = stmt.module, stmt.level
        if is_cutile(module, level):
            return
        dep: ModuleInfo | Unread | None = None
        read = False  # the module is read on first need (not for a submodule)
        for alias in stmt.names:
            local = alias.asname or alias.name
            sub = f"{module}.{alias.name}" if module else alias.name
            if not _outside_project(module, level) and self.finder.locate(
                    self.info.path, sub, level) is not None:
                self._forget(local)  # a submodule: a module, not one of cutile's objects
                continue
            if not read:
                dep, read = self._dependency(module, level), True
            if dep is None:
                continue
            if isinstance(dep, Unread):
                if dep.why or level or alias.name in cutile_names():
                    self.info.unresolved[local] = dep
                else:  # not one of cutile's names: host code, unless a kernel calls it
                    self.info.foreign[local] = dep.module
            else:
                self._bind(local, alias.name, dep, _shown(module, level))

    def _bind(self, local: str, name: str, dep: ModuleInfo, shown: str) -> None:
        target = dep.aliases.get(name)
        self._forget(local)
        if target is not None:
            self.info.aliases[local] = target
        elif name in dep.unresolved:
            self.info.unresolved[local] = dep.unresolved[name]
        elif name in dep.computed:
            self.info.unresolved[local] = Unread(shown, f" ('{name}' is computed there when it "
                                                        "runs)")
        elif name in dep.conditional:
            self.info.unresolved[local] = Unread(
                shown, f" ('{name}' is bound there inside a block)")
        elif name not in dep.assigned_globals and dep.star_unread:
            self.info.unresolved[local] = dep.star_unread[0]

    def _forget(self, local: str) -> None:
        """A rebinding: what the name meant before no longer holds."""
        if self.info.aliases.get(local, "").split(".")[0] == PACKAGE:
            del self.info.aliases[local]
        unbind(self.info, local)


def unbind(info: ModuleInfo, name: str) -> None:
    """`name` is bound anew: where an import said it came from no longer holds."""
    info.unresolved.pop(name, None)
    info.foreign.pop(name, None)


def unread_name(info: ModuleInfo, node: ast.Name) -> Diagnostic | None:
    """CT103 for a global name a kernel uses that comes from a module cutile cannot read (or
    may come from a `from m import *` of one); None when it comes from nowhere unread."""
    unread = info.unresolved.get(node.id)
    if unread is not None:
        return msg.UNREAD_IMPORT.at(info.span(node), name=node.id, module=unread.module,
                                    why=unread.why)
    if info.star_unread and node.id not in info.assigned_globals and node.id not in _BUILTINS:
        star = info.star_unread[0]
        return msg.UNREAD_STAR.at(info.span(node), name=node.id, module=star.module,
                                  why=star.why)
    return None


def unread_in(info: ModuleInfo, expr: ast.AST, local: set[str] | frozenset[str] = frozenset()
              ) -> Diagnostic | None:
    """The first name in an expression (an annotation, a decorator) that `unread_name` flags."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id not in local:
            found = unread_name(info, node)
            if found is not None:
                return found
    return None


def unread_decorators(info: ModuleInfo) -> list[Diagnostic]:
    """CT103 at each `@ct.kernel` / `@ct.function` (by its last name) whose `ct` comes from a
    module cutile cannot read: the function is a kernel when it runs, but no static read can
    tell, so the checker and the JIT say where the name comes from."""
    out: list[Diagnostic] = []
    for node in ast.walk(info.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = unread_decorator(info, node)
            if found is not None:
                out.append(found)
    return out


def unread_decorator(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
                     ) -> Diagnostic | None:
    for deco in node.decorator_list:
        func = deco.func if isinstance(deco, ast.Call) else deco
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if last in ("kernel", "function") and info.resolve(func) is None:
            found = unread_in(info, func)
            if found is not None:
                return found
    return None


_BUILTINS = frozenset(dir(builtins))
