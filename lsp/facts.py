"""What the server derives from one version of a document, each computed at most once.

Hovers, inlay hints and code actions ask for the same facts over and over (a client sends one
hover per mouse move); on a big file each costs seconds, so they are kept with the version they
were made from. Computations run on worker threads: a lock per document makes a second request
wait for the first one's result instead of repeating the work.
"""

from __future__ import annotations

import ast
import threading
import tokenize
from collections.abc import Callable
from typing import TypeVar

from cutile.checker.fixes import module_aliases
from cutile.checker.host import OwnershipView
from cutile.checker.regions import Outline, outline, python_tree
from cutile.reader.source import ModuleInfo

from . import engine
from .document import bare_lines
from .syntax import NameIndex, name_index, region_tokens

T = TypeVar("T")
_MISSING = object()


class DocumentFacts:
    def __init__(self, source: str, path: str, version: int | None) -> None:
        self.source = source
        self.path = path
        self.version = version
        self._lock = threading.RLock()
        self._cache: dict[object, object] = {}

    def matches(self, source: str, version: int | None) -> bool:
        return self.version == version and self.source == source

    def _once(self, key: object, make: Callable[[], T]) -> T:
        with self._lock:
            found = self._cache.get(key, _MISSING)
            if found is _MISSING:
                found = make()
                self._cache[key] = found
            return found  # type: ignore[return-value]

    def _info(self) -> ModuleInfo | None:
        return self._once("info", lambda: engine.parse(self.source, self.path))

    def typed_names(self, lines: tuple[int, int] | None = None) -> list[engine.TypedName]:
        """The typed names of the kernels in the top-level statements around `lines` (first,
        last), or of all kernels: a hover types one kernel, not the whole file."""
        where = self.outline() if lines is not None else None
        region = where.region(*lines) if where is not None and lines is not None else None
        if lines is not None and region is None:
            return []  # no statement there, or the file does not parse
        return self._once(("typed", region),
                          lambda: engine.typed_names(self._info(), lines=region))

    def ownership(self) -> OwnershipView:
        return self._once("owned", lambda: engine.ownership(self._info()))

    def _tree(self) -> ast.Module | None:
        def make() -> ast.Module | None:
            info = self._info()
            return info.tree if info is not None else python_tree(self.source)

        return self._once("tree", make)

    def names(self, line: int) -> NameIndex | None:
        """Names, functions and assignment targets of the top-level statements around `line`."""
        where = self.outline()
        region = where.region(line, line) if where is not None else None
        if where is None or region is None:
            return None
        return self._once(("names", region),
                          lambda: name_index(where.text(region), region[0]))

    def outline(self) -> Outline | None:
        return self._once("outline", lambda: outline(self.source, self._tree()))

    def lines(self) -> list[str]:
        return self._once("lines", lambda: bare_lines(self.source))

    def aliases(self) -> dict[str, str]:
        return self._once("aliases", lambda: module_aliases(self.source, self.path))

    def tokens_around(self, line: int) -> list[tokenize.TokenInfo] | None:
        where = self.outline()
        region = where.region(line, line) if where is not None else None
        return self._once(("tokens", region or line),
                          lambda: region_tokens(self.source, line, where))
