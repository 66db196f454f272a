"""Finding each file's configuration (the nearest pyproject.toml with a [tool.cutile-check] table)
and the Python files under the paths given on the command line."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span
from .config import Config, Overrides, read_pyproject

SUFFIXES = (".py", ".pyi")


@dataclass
class ConfigResolver:
    """Walks up from a directory to its nearest configuration, caching every directory on the way;
    each pyproject.toml is read once and its CT901 diagnostics are kept once."""

    overrides: Overrides = field(default_factory=Overrides)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _by_dir: dict[str, Config] = field(default_factory=dict)
    _explicit: Config | None = None

    def __post_init__(self) -> None:
        if self.overrides.config_path is not None:
            path = self.overrides.config_path
            config, diags = read_pyproject(path)
            self.diagnostics += diags
            if config is None:
                span = Span(path, 1, 0, 1, 0)
                self.diagnostics.append(
                    msg.CONFIG_NO_TABLE.at(span, path=path))
                config = Config(root=os.path.dirname(os.path.abspath(path)), source=path)
            self._explicit = config.with_overrides(self.overrides)

    def for_file(self, path: str) -> Config:
        return self.for_dir(os.path.dirname(os.path.abspath(path)))

    def for_dir(self, directory: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        directory = os.path.abspath(directory)
        walked: list[str] = []
        found: Config | None = None
        current = directory
        while True:
            cached = self._by_dir.get(current)
            if cached is not None:
                found = cached
                break
            walked.append(current)
            candidate = os.path.join(current, "pyproject.toml")
            if os.path.isfile(candidate):
                config, diags = read_pyproject(_display(candidate))
                self.diagnostics += diags
                if config is not None:
                    found = config.with_overrides(self.overrides)
                    break
            parent = os.path.dirname(current)
            if parent == current:
                found = Config().with_overrides(self.overrides)
                break
            current = parent
        for d in walked:
            self._by_dir[d] = found
        return found


def iter_files(paths: list[str], resolver: ConfigResolver) -> Iterator[str | Diagnostic]:
    """Each file to check, in a stable order, a CT904 diagnostic for a path that does not
    exist (a broken symbolic link exists: a file that cannot be read, CT906), or a CT905
    warning for a directory without Python files (as ruff warns). Files and directories
    named explicitly are checked even when excluded, unless `force_exclude`."""
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            if resolver.overrides.force_exclude and _excluded(path, resolver):
                # as for a folder without Python files: nothing checked is worth a warning
                yield msg.NO_PYTHON_FILES.at(Span(path, 1, 0, 1, 0), path=path)
                continue
            empty = True
            for found in _walk(path, resolver):
                empty = False
                key = os.path.abspath(found)
                if key not in seen:
                    seen.add(key)
                    yield found
            if empty:
                yield msg.NO_PYTHON_FILES.at(Span(path, 1, 0, 1, 0), path=path)
        elif os.path.lexists(path):  # a broken link too: reading it says why it fails (CT906)
            key = os.path.abspath(path)
            if key in seen:
                continue
            seen.add(key)
            if resolver.overrides.force_exclude and _excluded(path, resolver):
                continue
            yield path
        else:
            yield msg.PATH_NOT_FOUND.at(Span(path, 1, 0, 1, 0), path=path)


def is_force_excluded(path: str, resolver: ConfigResolver) -> bool:
    """Whether a path given by name (or a stdin file name) is excluded under --force-exclude."""
    return resolver.overrides.force_exclude and _excluded(path, resolver)


def _excluded(path: str, resolver: ConfigResolver) -> bool:
    return resolver.for_file(path).excluded(path)


def _walk(top: str, resolver: ConfigResolver) -> Iterator[str]:
    """The Python files below `top`. Excludes apply to what the walk meets, never to `top` or
    the folders above it: the user named those (ruff's rule; a folder under site-packages or
    build/ is checked when named)."""
    for dirpath, dirnames, filenames in os.walk(top):
        config = resolver.for_dir(dirpath)
        # Prune excluded directories in place so os.walk never enters them.
        dirnames[:] = sorted(
            d for d in dirnames if not config.excluded_entry(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            if name.endswith(SUFFIXES):
                full = os.path.normpath(os.path.join(dirpath, name))  # "k.py", not "./k.py"
                if not config.excluded_entry(full):
                    yield full


def _display(path: str) -> str:
    """A path relative to the working directory when it is below it (shorter messages)."""
    rel = os.path.relpath(path)
    return path if rel.startswith(os.pardir) else rel
