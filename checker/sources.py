"""The modules of one checker run: every file parsed at most once (the frontend and the host
analysis share the parse), and imports resolved to project files by path, never by importing."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..compiler.diagnostics import Diagnostic
from ..compiler.frontend.module import ModuleInfo, parse_module


def read_source(path: str) -> str:
    """A Python file's text, decoded as Python does (PEP 263 cookie, BOM, else UTF-8).
    Raises OSError, SyntaxError (bad cookie) or UnicodeDecodeError."""
    with open(path, "rb") as fh:
        return decode_source(fh.read())


def decode_source(raw: bytes) -> str:
    """Bytes of Python source as text, honouring a coding cookie or a BOM."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding)


@dataclass
class Project:
    """Parsed modules by absolute path; `roots` are extra directories to resolve imports from."""

    roots: tuple[str, ...] = ()
    _parsed: dict[str, ModuleInfo | Diagnostic | None] = field(default_factory=dict)

    def parse(self, path: str, source: str | None = None) -> ModuleInfo | Diagnostic | None:
        """The module at `path` (read from disk unless `source` is given); None if unreadable."""
        key = os.path.abspath(path)
        if key in self._parsed and source is None:
            return self._parsed[key]
        if source is None:
            try:
                source = read_source(path)
            except (OSError, SyntaxError, UnicodeDecodeError):
                self._parsed[key] = None
                return None
        info = parse_module(source, path)
        self._parsed[key] = info
        return info

    def find_module(self, name: str, importer: str, level: int = 0) -> ModuleInfo | None:
        """The parsed module that `from <level dots><name> import ...` in `importer` refers to,
        when it is a file of this project; None for anything else (stdlib, installed packages)."""
        for base in self._bases(importer, level):
            found = _module_file(base, name)
            if found is not None:
                info = self.parse(found)
                return info if isinstance(info, ModuleInfo) else None
        return None

    def _bases(self, importer: str, level: int) -> Iterable[str]:
        here = os.path.dirname(os.path.abspath(importer))
        if level > 0:
            for _ in range(level - 1):
                here = os.path.dirname(here)
            yield here
            return
        # Absolute imports: the importer's package root (the first folder above it without an
        # __init__.py), its own folder (scripts next to each other), then the configured roots.
        top = here
        while os.path.isfile(os.path.join(top, "__init__.py")):
            top = os.path.dirname(top)
        yield top
        if top != here:
            yield here
        yield from self.roots


def _module_file(base: str, name: str) -> str | None:
    stem = os.path.join(base, *name.split(".")) if name else base
    for candidate in (stem + ".py", stem + ".pyi", os.path.join(stem, "__init__.py"),
                      os.path.join(stem, "__init__.pyi")):
        if os.path.isfile(candidate):
            return candidate
    return None
