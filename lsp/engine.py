"""The one place the server calls into the checker and the compiler.

Diagnostics come from the checker glue (`cutile.checker.analyze.analyze_source`: host ownership,
suppressions, pyproject config) when it is installed, else from the kernel frontend alone
(`cutile.compiler.check_source`). Per-file configuration comes from the checker's resolver (the
nearest pyproject.toml with a [tool.cutile-check] table), cached until `reset()`. Typed names for
hovers and inlay hints come from the compiler when it exposes them; without that, those features
answer nothing rather than guess.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cutile.compiler.api import check_source
from cutile.compiler.diagnostics import Diagnostic, Span

CONFIG_FILE = "pyproject.toml"


@dataclass(frozen=True)
class TypedName:
    """A name in a kernel and its type as the compiler prints it (e.g. `Tile[f32, (128,)]`)."""

    name: str
    span: Span
    type_text: str


class TypedNamesFn(Protocol):
    def __call__(self, source: str, path: str) -> Sequence[TypedName]: ...


def _optional(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def is_config_file(path: str) -> bool:
    return Path(path).name == CONFIG_FILE


class Analyzer:
    """Analyses files with the best analyzer installed; caches configuration per directory."""

    def __init__(self) -> None:
        self._resolver: Any = None
        self._reported = 0

    def reset(self) -> None:
        """Forget cached configuration (a pyproject.toml changed)."""
        self._resolver = None
        self._reported = 0

    def config_for(self, path: str) -> object | None:
        if self._resolver is None:
            resolver_cls = _optional("cutile.checker.discovery", "ConfigResolver")
            if resolver_cls is None:
                return None
            self._resolver = resolver_cls()
        config: object = self._resolver.for_file(path)
        return config

    def config_problems(self) -> list[Diagnostic]:
        """Configuration diagnostics (CT901) found since the last call."""
        if self._resolver is None:
            return []
        found: list[Diagnostic] = list(self._resolver.diagnostics)
        new, self._reported = found[self._reported:], len(found)
        return new

    def analyze(self, source: str, path: str) -> list[Diagnostic]:
        """All diagnostics of one file. Exceptions propagate: the scheduler logs them."""
        checker: Callable[..., Any] | None = _optional("cutile.checker.analyze", "analyze_source")
        if checker is None:
            return check_source(source, path)
        return list(checker(source, path, self.config_for(path)))


def typed_names_provider() -> TypedNamesFn | None:
    """The compiler's typed-names function, once it exists; None until then."""
    return None


def typed_names(source: str, path: str) -> list[TypedName]:
    provider = typed_names_provider()
    if provider is None:
        return []
    try:
        return list(provider(source, path))
    except Exception:  # a broken file mid-edit: no hovers, and diagnostics say why
        return []
