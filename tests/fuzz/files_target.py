"""The files target: `cutile-check` over a folder of files it may not be able to read, run as the
command line runs (every output format, a strict UTF-8 standard output).

A case is a list of [name, kind, content]: bytes in odd encodings (mutants re-encoded, bytes that
are not UTF-8, lone surrogates, NUL bytes, bad coding cookies), a directory, a named pipe or a
broken symbolic link under a `.py` name, and names with spaces, non-ASCII characters or bytes
that are not UTF-8. The properties: no exception and no CT999; exit status 1 when something
failed, else 0 or 1; each file that cannot be read or decoded has exactly one CT906 (on a line
of the file), and the others are checked; JSON and SARIF output parse; the concise output
names every finding's file.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import tempfile
from typing import Any

from cutile.checker import cli
from cutile.checker.formats import FORMATS
from cutile.reader.decode import UndecodableSource, decode_source

from . import corpus, mutate

NAMES = ("a.py", "b c.py", "é ü.py", "\U0001f600.pyi", "weird\udcff.py", "-dash.py",
         "pct%41.py", "colon:comma,.py")
KINDS = ("text", "oddly", "bad-byte", "surrogate", "nul", "cookie", "dir", "fifo",
         "broken-link")
Entry = list[str]  # [name, kind, content (bytes as latin-1 text, so a case is JSON)]


def case(rng: random.Random, huge_lines: int = 0) -> list[Entry]:
    names = rng.sample(NAMES, rng.randint(1, 3))
    return [[name, kind, _content(rng, kind)]
            for name, kind in zip(names, (rng.choice(KINDS) for _ in names), strict=True)]


def _content(rng: random.Random, kind: str) -> str:
    m = mutate.mutant(rng, corpus.seeds())
    text = m.decode("utf-8", errors="replace") if isinstance(m, bytes) else m
    raw = text.encode("utf-8", errors="surrogatepass")
    at = rng.randrange(len(raw) + 1)
    if kind == "oddly":
        raw = mutate.encode_oddly(rng, text)
    elif kind == "bad-byte":
        raw = raw[:at] + rng.choice((b"\xff", b"\xc3", b"\x80", b"\xf4\x90\x80\x80")) + raw[at:]
    elif kind == "surrogate":
        raw = raw[:at] + b"\xed\xb2\x80" + raw[at:]
    elif kind == "nul":
        raw = raw[:at] + b"\x00" + raw[at:]
    elif kind == "cookie":
        raw = b"# -*- coding: " + rng.choice((b"bogus", b"hex", b"utf-16", b"latin-1")) + \
            b" -*-\n" + raw
    elif kind in ("dir", "fifo", "broken-link"):
        return ""
    return raw.decode("latin-1")


def _create(folder: str, entry: Entry) -> str:
    name, kind, content = entry
    path = os.path.join(folder, name)
    if kind == "dir":
        os.mkdir(path)
        with open(os.path.join(path, "notes.txt"), "w") as fh:
            fh.write("not python\n")
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            return path
        os.mkfifo(path)
    elif kind == "broken-link":
        os.symlink(os.path.join(folder, "missing target"), path)
    else:
        with open(path, "wb") as fh:
            fh.write(content.encode("latin-1"))
    return path


def _run(argv: list[str]) -> tuple[int, str]:
    """cutile-check in this process, its standard output a strict UTF-8 stream."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="\n")
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    out.flush()
    return code, raw.getvalue().decode("utf-8", errors="surrogateescape")


def _unreadable(entry: Entry) -> bool:
    """Whether the file is one cutile-check cannot read or decode."""
    _, kind, content = entry
    if kind in ("fifo", "broken-link"):
        return kind != "fifo" or hasattr(os, "mkfifo")
    if kind == "dir":
        return False  # a directory is walked (it has no Python files: nothing to report)
    try:
        decode_source(content.encode("latin-1"))
    except UndecodableSource:
        return True
    return False


def check(entries: list[Entry]) -> str | None:
    folder = tempfile.mkdtemp(prefix="cutile files é ")
    try:
        paths = [_create(folder, entry) for entry in entries]
        # the folder walked, then each file named on the command line (as pre-commit does)
        return _check_run([folder], entries, formats=True) or _check_run(paths, entries)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check_run(paths: list[str], entries: list[Entry], formats: bool = False) -> str | None:
    code, out = _run([*paths, "--jobs", "1", "--output-format", "json", "-q"])
    if code not in (0, 1):
        return f"exit status {code}\n{out[-2000:]}"
    found: list[dict[str, Any]] = json.loads(out)
    if any(d["code"] == "CT999" for d in found):
        return "CT999 " + next(d["message"] for d in found if d["code"] == "CT999")[:160]
    for entry in entries:
        problem = _expect(entry, [d for d in found
                                  if os.path.basename(d["path"]) == entry[0]])
        if problem is not None:
            return problem
    if any(_unreadable(e) for e in entries) and code != 1:
        return f"exit status {code} with a file that cannot be read"
    for fmt in sorted(FORMATS) if formats else ():
        fmt_code, text = _run([*paths, "--jobs", "1", "--output-format", fmt])
        if fmt_code != code:
            return f"exit status {fmt_code} with --output-format {fmt}, {code} with json"
        if fmt in ("json", "sarif"):
            json.loads(text)
    return None


def _expect(entry: Entry, found: list[dict[str, Any]]) -> str | None:
    _, kind, content = entry
    unreadable = [d for d in found if d["code"] == "CT906"]
    if not _unreadable(entry):
        return f"CT906 for a readable {kind} file: {unreadable[0]['message'][:160]}" \
            if unreadable else None
    if len(found) != 1 or len(unreadable) != 1:
        return f"a {kind} file gave {[d['code'] for d in found]}, not one CT906"
    lines = content.count("\n") + 1
    if not 1 <= found[0]["line"] <= lines:
        return f"CT906 at line {found[0]['line']} of a {lines}-line {kind} file"
    return None
