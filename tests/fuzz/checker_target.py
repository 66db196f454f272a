"""The checker target: every mutant gets findings (never an exception, never CT999), and a
mutant's findings do not change when unrelated code is added around it."""

from __future__ import annotations

import ast
import random

from cutile.checker.analyze import analyze_source
from cutile.diagnostics.diagnostic import Diagnostic
from cutile.reader.decode import UndecodableSource, decode_source

from . import corpus, mutate

PATH = "fuzz_case.py"
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
        try:
            source = decode_source(source)
        except UndecodableSource as err:
            return [err.diagnostic(PATH)]
    return analyze_source(source, PATH)


def _key(d: Diagnostic, shift: int = 0) -> tuple[str, int, int, int, int, str]:
    s = d.span
    return (d.code, s.line - shift, s.col, s.end_line - shift, s.end_col, d.message)


def check(source: mutate.Mutant) -> str | None:
    found = findings(source)
    internal = [d for d in found if d.code == "CT999"]
    if internal:
        return f"CT999 {internal[0].message[:160]}"
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
