"""The one place the server calls into the checker and the compiler.

Diagnostics come from the checker glue (`cutile.checker.analyze.analyze_source`: kernel frontend,
host ownership, suppressions, selection, severities), with each file's configuration from the
checker's resolver (the nearest pyproject.toml with a [tool.cutile-check] table), cached until
`reset()`; files the configuration excludes get no diagnostics, as on the command line.

Every analysis of one document version reads the same parse (`read_module`, the module
reader's cache). Typed names for hovers and inlay hints come from the compiler
(`cutile.compiler.api.typed_names`): the names each kernel binds and their tile types.
Ownership states for hovers on host names come from the host checker
(`cutile.checker.host.ownership_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cutile.checker.analyze import analyze_source
from cutile.checker.discovery import ConfigResolver
from cutile.checker.host import OwnershipView, ProjectIndex, ownership_view
from cutile.compiler.api import typed_names as compiler_typed_names
from cutile.diagnostics.diagnostic import Diagnostic, Span
from cutile.reader.source import MODULES, ModuleInfo, analysis_guard, read_module

CONFIG_FILE = "pyproject.toml"


@dataclass(frozen=True)
class TypedName:
    """A name in a kernel and its type as the compiler prints it (e.g. `Tile[f32, (128,)]`)."""

    name: str
    span: Span
    type_text: str


def is_config_file(path: str) -> bool:
    return Path(path).name == CONFIG_FILE


@dataclass(frozen=True)
class FileResult:
    diagnostics: tuple[Diagnostic, ...]
    config_problems: tuple[Diagnostic, ...]  # CT901 of pyproject files read for the first time


class Analyzer:
    """Analyses files with the checker; caches configuration per directory until `reset()`."""

    def __init__(self) -> None:
        self._resolver = ConfigResolver()
        self._reported = 0

    def reset(self) -> None:
        """Forget cached configuration (a pyproject.toml changed)."""
        self._resolver = ConfigResolver()
        self._reported = 0

    def analyze(self, source: str, path: str) -> FileResult:
        """All diagnostics of one file. Exceptions propagate: the scheduler logs them."""
        resolver = self._resolver
        config = resolver.for_file(path)
        found = () if config.excluded(path) else tuple(
            analyze_source(source, path, config, parsed=read_module(source, path)))
        problems = tuple(resolver.diagnostics[self._reported:])
        self._reported = len(resolver.diagnostics)
        return FileResult(found, problems)


def forget(path: str) -> None:
    """The editor closed the file: drop its parses."""
    MODULES.forget(path)


def parse(source: str, path: str) -> ModuleInfo | None:
    """The module for hovers and inlay hints (one parse per text, shared with the checker's
    analysis); None for a file that does not parse (its diagnostics say why)."""
    with analysis_guard():
        info = read_module(source, path)
    return None if isinstance(info, Diagnostic) else info


def typed_names(source: str | ModuleInfo | None, path: str = "",
                lines: tuple[int, int] | None = None) -> list[TypedName]:
    """Every tile-valued name a kernel binds, with its type (only in kernels overlapping
    `lines` when given); nothing for a file that does not parse."""
    info = parse(source, path) if isinstance(source, str) else source
    if info is None:
        return []
    with analysis_guard():
        return [TypedName(n.name, n.span, n.type) for n in compiler_typed_names(info, lines)]


def ownership(source: str | ModuleInfo | None, path: str = "") -> OwnershipView:
    """The host ownership facts of one file; nothing for a file that does not parse."""
    info = parse(source, path) if isinstance(source, str) else source
    if info is None:
        return OwnershipView((), ())
    with analysis_guard():
        return ownership_view(info, ProjectIndex())
