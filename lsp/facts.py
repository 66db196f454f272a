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

from cutile.checker.host import OwnershipView

from . import engine
from .fixes import module_aliases
from .syntax import NameIndex, Outline, name_index, outline, python_tree, region_tokens

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

    def typed_names(self) -> list[engine.TypedName]:
        return self._once("typed", lambda: engine.typed_names(self.source, self.path))

    def ownership(self) -> OwnershipView:
        return self._once("owned", lambda: engine.ownership(self.source, self.path))

    def _tree(self) -> ast.Module | None:
        return self._once("tree", lambda: python_tree(self.source))

    def names(self) -> NameIndex | None:
        return self._once("names", lambda: name_index(self.source, self._tree()))

    def outline(self) -> Outline | None:
        return self._once("outline", lambda: outline(self.source, self._tree()))

    def lines(self) -> list[str]:
        return self._once("lines", self.source.splitlines)

    def aliases(self) -> dict[str, str]:
        return self._once("aliases", lambda: module_aliases(self.source, self.path))

    def tokens_around(self, line: int) -> list[tokenize.TokenInfo] | None:
        where = self.outline()
        region = where.region(line, line) if where is not None else None
        return self._once(("tokens", region or line),
                          lambda: region_tokens(self.source, line, where))
