"""`[tool.cutile-check]` in pyproject.toml, parsed once into a frozen `Config`.

Invalid keys or values become CT901 diagnostics pointing at their line of the pyproject.toml; the
valid rest of the table still applies.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Any

from ..diagnostics import messages as msg
from ..diagnostics.codes import CODES
from ..diagnostics.diagnostic import Diagnostic, Severity, Span
from ..diagnostics.messages import Message
from .selection import Selection, always_reported, normalize_pattern

TABLE = "cutile-check"

# Directories nobody wants checked (the same spirit as ruff's defaults). `exclude` replaces this
# list; `extend-exclude` adds to it.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pytest_cache",
    ".ruff_cache", ".svn", ".tox", ".venv", "__pycache__", "__pypackages__", "_build", "build",
    "dist", "node_modules", "site-packages", "venv",
)

KNOWN_KEYS = (
    "select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
    "severity",
)


@dataclass(frozen=True)
class Config:
    """The typed options for the files under one pyproject.toml (or the defaults)."""

    root: str | None = None  # directory that globs are relative to
    source: str | None = None  # the pyproject.toml this came from
    select: tuple[str, ...] = ("CT",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()  # most specific prefix first
    selection: Selection = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Computed once: `enabled` runs for every diagnostic.
        object.__setattr__(self, "selection", Selection(
            self.select + self.extend_select, self.ignore))

    def with_overrides(self, overrides: Overrides) -> Config:
        """Command-line options on top: `--select` replaces the file's selection entirely."""
        if overrides.select is not None:
            base = replace(self, select=overrides.select, extend_select=(), ignore=())
        else:
            base = self
        if not overrides.extend_select and not overrides.ignore:
            return base
        return replace(base, extend_select=base.extend_select + overrides.extend_select,
                       ignore=base.ignore + overrides.ignore)

    def enabled(self, code: str, path: str) -> bool:
        if not self.selection.enabled(code):
            return False
        if always_reported(code) or not self.per_file_ignores:
            return True
        parts = self.relative_parts(path)
        return not any(
            path_matches(glob, parts) and any(code.startswith(p) for p in codes)
            for glob, codes in self.per_file_ignores)

    def severity_of(self, code: str, default: Severity) -> Severity:
        if always_reported(code):
            return default
        for prefix, severity in self.severity:
            if code.startswith(prefix):
                return severity
        return default

    def excluded(self, path: str) -> bool:
        """Whether `path` or a folder above it (below the configuration's folder) is excluded:
        for a path named on the command line with --force-exclude, and for editors."""
        parts = self.relative_parts(path)
        return any(path_matches(glob, parts) for glob in self.exclude + self.extend_exclude)

    def excluded_entry(self, path: str) -> bool:
        """Whether a file or folder met while walking a folder named on the command line is
        excluded: a glob without `/` matches its name, a glob with one its path. The folders
        above it were met on the way (or named by the user, which includes them), so they do
        not count: `cutile-check .venv/lib/python3.12/site-packages/pkg` checks pkg."""
        parts = self.relative_parts(path)
        if not parts:
            return False
        return any(fnmatchcase("/".join(parts), glob.strip("/")) if "/" in glob
                   else fnmatchcase(parts[-1], glob)
                   for glob in self.exclude + self.extend_exclude)

    def relative_parts(self, path: str) -> tuple[str, ...]:
        """`path` split into components, relative to the config's root when it lies below it."""
        full = os.path.abspath(path)
        # Without a pyproject.toml, globs are relative to the working directory.
        rel = os.path.relpath(full, self.root if self.root is not None else os.getcwd())
        if not rel.startswith(os.pardir):
            full = rel
        return tuple(p for p in full.replace(os.sep, "/").split("/") if p and p != ".")


@dataclass(frozen=True)
class Overrides:
    """What the command line (or an editor) sets on top of every file's configuration."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    config_path: str | None = None  # use this pyproject.toml for every file
    force_exclude: bool = False  # apply excludes to paths named explicitly too
    jobs: int | None = None  # processes for many files; None: one per core


def path_matches(glob: str, parts: tuple[str, ...]) -> bool:
    """A glob with a `/` matches the relative path or one of its parent directories; a glob
    without one matches any single component (so `build` excludes every build directory)."""
    pattern = glob.strip("/")
    if "/" in glob:
        return any(fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts) + 1))
    return any(fnmatchcase(part, pattern) for part in parts)


def read_pyproject(path: str) -> tuple[Config | None, list[Diagnostic]]:
    """The Config of a pyproject.toml, or None when it has no [tool.cutile-check] table."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as err:
        return Config(root=os.path.dirname(os.path.abspath(path)), source=path), [
            msg.CONFIG_UNREADABLE.at(Span(path, 1, 0, 1, 0), path=path, detail=str(err))]
    except tomllib.TOMLDecodeError as err:
        line, col = _toml_error_position(str(err), text)
        detail = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(err))
        return Config(root=os.path.dirname(os.path.abspath(path)), source=path), [
            msg.CONFIG_UNREADABLE.at(Span(path, line, col, line, col + 1), path=path,
                                     detail=detail)]
    tool = data.get("tool")
    if not isinstance(tool, dict) or TABLE not in tool:
        return None, []
    return parse_table(tool[TABLE], path, text)


def parse_table(table: Any, path: str, text: str) -> tuple[Config, list[Diagnostic]]:
    locate = _Locator(path, text)
    root = os.path.dirname(os.path.abspath(path))
    if not isinstance(table, dict):
        return Config(root=root, source=path), [locate.error(
            msg.CONFIG_BAD_VALUE, None, key=TABLE, problem="must be a table")]
    diags: list[Diagnostic] = []
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KNOWN_KEYS:
            close = difflib.get_close_matches(key.replace("_", "-"), KNOWN_KEYS, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            diags.append(locate.error(msg.CONFIG_UNKNOWN_KEY, key, key=key, hint=hint))
            continue
        parsed = _PARSERS[key](key, value, locate, diags)
        if parsed is not None:
            values[key.replace("-", "_")] = parsed
    return Config(root=root, source=path, **values), diags


_Parsed = Any


def _codes(key: str, value: Any, locate: _Locator, diags: list[Diagnostic]) -> _Parsed:
    items = _strings(key, value, locate, diags)
    if items is None:
        return None
    out: list[str] = []
    for item in items:
        code = normalize_pattern(item)
        if code is None:
            diags.append(locate.error(msg.CONFIG_BAD_CODE, key, value_text=item, value=item,
                                      key=key))
        else:
            out.append(code)
    return tuple(out)


def _globs(key: str, value: Any, locate: _Locator, diags: list[Diagnostic]) -> _Parsed:
    items = _strings(key, value, locate, diags)
    return None if items is None else tuple(items)


def _per_file_ignores(key: str, value: Any, locate: _Locator,
                      diags: list[Diagnostic]) -> _Parsed:
    if not isinstance(value, dict):
        diags.append(locate.error(msg.CONFIG_BAD_VALUE, key, key=key,
                                  problem="must be a table of glob = [codes]"))
        return None
    out: list[tuple[str, tuple[str, ...]]] = []
    for glob, codes in value.items():
        parsed = _codes(f"{key}.{glob}", codes, locate, diags)
        if parsed is not None:
            out.append((glob, parsed))
    return tuple(out)


_SEVERITIES = {s.value: s for s in Severity}


def _severity(key: str, value: Any, locate: _Locator, diags: list[Diagnostic]) -> _Parsed:
    if not isinstance(value, dict):
        diags.append(locate.error(msg.CONFIG_BAD_VALUE, key, key=key,
                                  problem='must be a table such as {CT2 = "warning"}'))
        return None
    out: list[tuple[str, Severity]] = []
    for pattern, level in value.items():
        code = normalize_pattern(pattern)
        if code is None:
            diags.append(locate.error(msg.CONFIG_BAD_CODE, key, value_text=pattern,
                                      value=pattern, key=key))
        elif not isinstance(level, str) or level.lower() not in _SEVERITIES:
            choices = ", ".join(f'"{s}"' for s in _SEVERITIES)
            diags.append(locate.error(msg.CONFIG_BAD_VALUE, key, value_text=pattern,
                                      key=f"{key}.{pattern}", problem=f"must be one of {choices}"))
        elif code in CODES and always_reported(code):  # a prefix (CT9) may cover other codes
            diags.append(locate.error(msg.CONFIG_BAD_VALUE, key, value_text=pattern,
                                      key=f"{key}.{pattern}",
                                      problem=f"cannot change {code}: it is always an error"))
        else:
            out.append((code, _SEVERITIES[level.lower()]))
    # Most specific first, so `{CT = "warning", CT301 = "error"}` keeps CT301 an error.
    return tuple(sorted(out, key=lambda item: -len(item[0])))


def _strings(key: str, value: Any, locate: _Locator,
             diags: list[Diagnostic]) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        diags.append(locate.error(msg.CONFIG_BAD_VALUE, key, key=key,
                                  problem="must be a list of strings"))
        return None
    return list(value)


_PARSERS = {
    "select": _codes, "ignore": _codes, "extend-select": _codes,
    "per-file-ignores": _per_file_ignores, "exclude": _globs, "extend-exclude": _globs,
    "severity": _severity,
}


class _Locator:
    """Finds the line of a key (or of a value after it) in the pyproject.toml text, so CT901
    points somewhere useful. tomllib keeps no positions; a line scan is enough for this table."""

    _HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*(\"cutile-check\"|'cutile-check'|cutile-check)"
                         r"\s*(\.\s*(?P<sub>[\w\"'-]+)\s*)?\]")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def error(self, message: Message, where: str | None, value_text: str | None = None,
              **kwargs: str) -> Diagnostic:
        line, col, width = self._find(where, value_text)
        span = Span(self.path, line, col, line, col + width)
        return message.at(span, **kwargs)

    def _find(self, key: str | None, value_text: str | None) -> tuple[int, int, int]:
        header = None
        top = key.split(".", 1)[0] if key else None
        for i, text in enumerate(self.lines):
            match = self._HEADER.match(text)
            if match is None:
                continue
            sub = (match.group("sub") or "").strip("\"'")
            if not sub and header is None:
                header = i
            if top is not None and sub == top:
                return self._value_after(i, value_text) or (i + 1, text.index("["), len(
                    text.strip()))
        if header is None:
            return (1, 0, 0)
        if top is not None:
            pattern = re.compile(rf"^\s*[\"']?{re.escape(top)}[\"']?\s*=")
            for i in range(header + 1, len(self.lines)):
                text = self.lines[i]
                if text.lstrip().startswith("["):
                    break
                if pattern.match(text):
                    found = self._value_after(i, value_text)
                    if found is not None:
                        return found
                    col = len(text) - len(text.lstrip())
                    return (i + 1, col, len(top))
        return (header + 1, 0, len(self.lines[header].rstrip()))

    def _value_after(self, start: int, value_text: str | None) -> tuple[int, int, int] | None:
        if value_text is None:
            return None
        for i in range(start, min(start + 50, len(self.lines))):
            text = self.lines[i]
            if i > start and text.lstrip().startswith("["):
                return None
            for quote in ('"', "'"):
                needle = f"{quote}{value_text}{quote}"
                col = text.find(needle)
                if col >= 0:
                    return (i + 1, col, len(needle))
            bare = re.match(rf"\s*{re.escape(value_text)}\s*=", text)  # a bare key: CT2 = ...
            if bare is not None:
                col = len(text) - len(text.lstrip())
                return (i + 1, col, len(value_text))
        return None


def _toml_error_position(error: str, text: str) -> tuple[int, int]:
    match = re.search(r"at line (\d+), column (\d+)", error)
    if match is None:
        # "at end of document": point at the last line.
        return (max(1, len(text.splitlines())), 0) if "end of document" in error else (1, 0)
    return (int(match.group(1)), max(0, int(match.group(2)) - 1))


def config_from_mapping(table: Mapping[str, Any], root: str | None = None) -> Config:
    """A Config from an already-parsed table (for editors and tests); errors raise ValueError."""
    config, diags = parse_table(dict(table), os.path.join(root or ".", "pyproject.toml"), "")
    if diags:
        raise ValueError("; ".join(d.message for d in diags))
    return replace(config, root=root)
