"""The real server, with the compiler's typed-names function replaced by one that reads types
from `#: TYPE` comments after assignments. It tests hover and inlay plumbing (ranges, UTF-16,
filtering) independently of the compiler's type inference."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from cutile.compiler.diagnostics import Span
from cutile.lsp import __main__, engine

_ASSIGNED = re.compile(r"^(?P<indent>\s*)(?P<name>\w+)\s*=.*#: (?P<type>.+)$")


def comment_types(source: str, path: str) -> Sequence[engine.TypedName]:
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = _ASSIGNED.match(line)
        if match:
            col = len(match.group("indent"))
            name = match.group("name")
            found.append(engine.TypedName(name, Span(path, number, col, number, col + len(name)),
                                          match.group("type").strip()))
    return found


def _provider() -> engine.TypedNamesFn:
    return comment_types


if __name__ == "__main__":
    engine.typed_names_provider = _provider  # type: ignore[assignment]
    __main__.main(sys.argv[1:])
