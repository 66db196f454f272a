"""The checker target: every mutant gets findings (never an exception, never CT999), and a
mutant's findings do not change when unrelated code is added around it. A mutant in bytes (an
odd encoding) is a file on disk, checked as `cutile-check` checks files: bytes that do not
decode are one CT906 inside the file, and bytes that do are checked as their text."""

from __future__ import annotations

import ast
import os
import random
import tempfile

from cutile.checker.analyze import analyze_source, check_file
from cutile.checker.config import Config
from cutile.checker.host import ProjectIndex
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader.decode import UndecodableSource, decode_source

from . import corpus, mutate

PATH = "fuzz_case.py"
_DIR: list[str] = []  # one scratch directory per worker process, for mutants in bytes
# Comment lines above the module shift every finding down and must change nothing else.
PREFIX = "# fuzz: an unrelated comment\n# and another one\n"
SHIFT = PREFIX.count("\n")
BIG = 5000  # lines
# A valid, unrelated kernel under names of its own, appended at the end of the module.
UNRELATED = '''

import cutile as _fz_ct


@_fz_ct.kernel
def _fz_unrelated(_fz_z: _fz_ct.Mut[_fz_ct.Tensor[_fz_ct.f32, (128,)]]) -> None:
    _fz_z.store(_fz_ct.zeros((128,), _fz_ct.f32) + 1.0)
'''


def case(rng: random.Random, huge_lines: int = 0) -> mutate.Mutant:
    return mutate.mutant(rng, corpus.seeds(), huge_lines)


def findings(source: mutate.Mutant) -> list[Diagnostic]:
    """What `cutile-check` reports for this text (or these bytes, read as a file)."""
    if isinstance(source, bytes):
        return _file_findings(source)
    return analyze_source(source, PATH)


def _file_findings(raw: bytes) -> list[Diagnostic]:
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="cutile fuzz é "))
    path = os.path.join(_DIR[0], PATH)
    with open(path, "wb") as fh:
        fh.write(raw)
    return check_file(path, Config(), ProjectIndex())[1]


def _decode_problem(raw: bytes, found: list[Diagnostic]) -> str | None:
    """Bytes that do not decode: exactly one CT906, on a line of the file; else none."""
    unreadable = [d for d in found if d.code == "CT906"]
    try:
        decode_source(raw)
    except UndecodableSource:
        lines = raw.count(b"\n") + 1
        if len(found) != 1 or len(unreadable) != 1:
            return f"undecodable bytes gave {[d.code for d in found]}, not one CT906"
        if not 1 <= found[0].span.line <= lines:
            return f"CT906 at line {found[0].span.line} of a {lines}-line file"
        return None
    if unreadable:
        return f"CT906 for bytes that decode: {unreadable[0].message[:160]}"
    return None


def _key(d: Diagnostic, shift: int = 0) -> tuple[str, int, int, int, int, str]:
    s = d.span
    return (d.code, s.line - shift, s.col, s.end_line - shift, s.end_col, d.message)


def check(source: mutate.Mutant) -> str | None:
    found = findings(source)
    internal = [d for d in found if d.code == "CT999"]
    if internal:
        return f"CT999 {internal[0].message[:160]}"
    if isinstance(source, bytes):
        return _decode_problem(source, found)
    if not isinstance(source, str) or source.count("\n") > BIG or not _parses(source):
        return None  # huge modules: crashes and time only (three analyses take too long)
    return _stable(source, found)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _stable(source: str, found: list[Diagnostic]) -> str | None:
    before = sorted(_key(d) for d in found)
    shifted = sorted(_key(d, SHIFT) for d in analyze_source(PREFIX + source, PATH))
    if shifted != before:
        return "verdict changed by comment lines above the module\n" + _diff(before, shifted)
    tail = source if source.endswith("\n") else source + "\n"
    appended = sorted(_key(d) for d in analyze_source(tail + UNRELATED, PATH))
    if appended != before:
        return "verdict changed by an unrelated kernel appended\n" + _diff(before, appended)
    return None


def _diff(a: list[tuple[str, int, int, int, int, str]],
          b: list[tuple[str, int, int, int, int, str]]) -> str:
    lost = [x for x in a if x not in b]
    new = [x for x in b if x not in a]
    return f"lost: {lost[:3]}\nnew: {new[:3]}"
