"""The buffer-vs-disk target: what `analyze_source(text, path)` reports (the language server runs
it on unsaved buffers) depends on the text alone, never on the file at `path` on disk nor on the
process's warning filters.

A case is [text, disk]: a mutant, and what the file at its path holds meanwhile (another
mutant, the same text shifted by non-ASCII characters, bytes that do not decode, nothing, a
directory). The text is analysed with that file on disk, then with no file at the path and
Python's warnings turned into errors (`python -W error`); both findings must be identical.
Python's SyntaxError took its line text and column from the file on disk, by file name.

The case is a list, so a repro is JSON; a failure shrinks over the text's lines.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import warnings
from typing import Any

from cutile.checker.analyze import analyze_source
from cutile.diagnostics.diagnostic import Diagnostic

from . import corpus, mutate

NAME = "buffer_vs_disk_case.py"
_DIR: list[str] = []  # one scratch directory per worker process
Key = tuple[object, ...]
# What the file on disk holds while the buffer is analysed: a `str` is written as UTF-8 (with
# surrogates escaped), DIRECTORY makes the path a directory, NOTHING leaves no file.
DIRECTORY = "\0directory"
NOTHING = "\0nothing"


def setup() -> None:
    _DIR.append(tempfile.mkdtemp(prefix="cutile fuzz é "))  # a space and non-ASCII, on purpose


def _path() -> str:
    if not _DIR:
        setup()
    return os.path.join(_DIR[0], NAME)


def case(rng: random.Random, huge_lines: int = 0) -> list[str]:
    text = _text(rng)
    return [text, _disk(rng, text)]


def _text(rng: random.Random) -> str:
    m = mutate.mutant(rng, corpus.seeds())
    return m.decode("utf-8", errors="replace") if isinstance(m, bytes) else m


def _disk(rng: random.Random, text: str) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return NOTHING
    if kind == 1:
        return DIRECTORY
    if kind == 2:  # the buffer's lines, each after characters wider in bytes than in text
        return _shifted(rng, text)
    if kind == 3:  # bytes that do not decode as UTF-8
        raw = _text(rng).encode("utf-8", errors="surrogatepass")
        at = rng.randrange(len(raw) + 1)
        return (raw[:at] + b"\xff\xfe" + raw[at:]).decode("utf-8", errors="surrogateescape")
    if kind == 4:
        return ""
    if kind == 5:  # the buffer as last saved: a different mutant of it
        return mutate.token_edit(rng, text) if text.strip() else text
    return _text(rng)  # another program


def _shifted(rng: random.Random, text: str) -> str:
    pad = rng.choice(("é", "\U0001f600", "\t", "ab", "€€€"))
    return "".join(pad * rng.randint(1, 9) + line for line in text.splitlines(keepends=True))


def _place(disk: str) -> None:
    path = _path()
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)
    if disk == DIRECTORY:
        os.mkdir(path)
    elif disk != NOTHING:
        with open(path, "wb") as fh:
            fh.write(_bytes(disk))


def _bytes(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")  # bytes that do not decode
    except UnicodeEncodeError:  # a lone surrogate outside the escapes: write it as UTF-8 would
        return text.encode("utf-8", errors="surrogatepass")


def _keys(found: list[Diagnostic]) -> list[Key]:
    return sorted((d.code, d.severity.value, d.span.line, d.span.col, d.span.end_line,
                   d.span.end_col, d.message, tuple(n.message for n in d.notes)) for d in found)


def check(c: list[str]) -> str | None:
    text, disk = c
    path = _path()
    _place(disk)
    with_file = _keys(analyze_source(text, path))
    _place(NOTHING)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what `python -W error` does to the analysis
        alone = _keys(analyze_source(text, path))
    if with_file != alone:
        lost = [k for k in alone if k not in with_file][:3]
        new = [k for k in with_file if k not in alone][:3]
        first = (lost or new or [("?",)])[0]
        return (f"findings depend on the file on disk or the warning filters: {first[0]}\n"
                f"without the file: {lost}\nwith it: {new}")
    return None


def split(c: list[str]) -> list[Any]:
    return c[0].splitlines(keepends=True)


def join(parts: list[Any], like: list[str]) -> list[str]:
    return ["".join(parts), like[1]]
