"""Which stack frames are cutile's own: judged by where the imported package really lives.

A path's text says nothing reliable: a checkout in a folder named `cutile` holds its virtual
environment (pygls, json, ...) below `.../cutile/.venv/`, and a user's own folder may be called
`lsp` or `runtime`. So a frame is ours when its file, with links resolved, lies inside the
directory of the imported `cutile` package or of one of its subpackages (the component folders
the editable install maps into it: compiler/, runtime/, checker/, lsp/, diagnostics/, reader/).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import pkgutil
import re
from collections.abc import Iterable

PACKAGE = "cutile"
# The subpackages setup.py installs; listed too because an editable install's import hook may
# map them without any folder below the package's own directory.
COMPONENTS = ("compiler", "runtime", "checker", "lsp", "diagnostics", "reader")
HARNESS = os.path.dirname(os.path.realpath(__file__))  # tests/fuzz itself
# A frame line of a Python traceback: `  File "/path/x.py", line 12, in f`.
FRAME_LINE = re.compile(r'^\s*File "(?P<path>[^"\n]+)", line \d+', re.MULTILINE)


@functools.cache
def package_dirs() -> tuple[str, ...]:
    """The real directories of `cutile` and of each of its subpackages."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("cannot locate the cutile package")
    roots = list(spec.submodule_search_locations)
    names = set(COMPONENTS) | {m.name for m in pkgutil.iter_modules(roots) if m.ispkg}
    dirs = {os.path.realpath(r) for r in roots}
    for name in sorted(names):
        sub = importlib.util.find_spec(f"{PACKAGE}.{name}")  # imports `cutile` only, not `name`
        if sub is not None and sub.submodule_search_locations:
            dirs |= {os.path.realpath(d) for d in sub.submodule_search_locations}
    return tuple(sorted(dirs))


def is_ours(filename: str) -> bool:
    """Whether a frame's file lies inside the cutile package (links resolved)."""
    if not filename or filename.startswith("<"):
        return False
    real = os.path.realpath(filename)
    return any(_inside(real, d) for d in package_dirs())


def is_harness(filename: str) -> bool:
    return _inside(os.path.realpath(filename), HARNESS)


def traceback_files(text: str) -> list[str]:
    """The files of every frame in tracebacks printed to a stream, in order."""
    return [m.group("path") for m in FRAME_LINE.finditer(text)]


def any_ours(files: Iterable[str]) -> bool:
    return any(is_ours(f) for f in files)


def _inside(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([path, directory]) == directory
    except ValueError:  # different drives (Windows) or a mix of absolute and relative paths
        return False
