"""Text edits and fixes in cutile coordinates (1-based lines, code-point columns), shared by the
language server's code actions and `cutile-check --fix`."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from .regions import physical_lines


class Applicability(enum.Enum):
    """Whether `cutile-check` may apply a fix without a person looking at it (ruff's terms)."""

    SAFE = "safe"  # --fix: the program does what it did, minus the error
    UNSAFE = "unsafe"  # --unsafe-fixes: it changes what runs (waits, converts a value)
    DISPLAY = "display"  # only offered in the editor: a choice, or a suppression comment


@dataclass(frozen=True)
class Edit:
    line: int
    col: int
    end_line: int
    end_col: int
    text: str

    @staticmethod
    def insert(line: int, col: int, text: str) -> Edit:
        return Edit(line, col, line, col, text)

    @property
    def start(self) -> tuple[int, int]:
        return (self.line, self.col)

    @property
    def end(self) -> tuple[int, int]:
        return (self.end_line, self.end_col)


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False
    applicability: Applicability = Applicability.DISPLAY
    # Fixes of one group change the same thing (a launch's wait): one of them per round.
    group: str | None = None


def overlaps(a: Iterable[Edit], b: Iterable[Edit]) -> bool:
    """Whether applying both sets of edits could mix them up: ranges that share text, or two
    insertions (or an insertion and a range edge) at one point, whose order would be a guess."""
    return any(x.start <= y.end and y.start <= x.end for x in a for y in b)


def apply(source: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """`source` with non-overlapping `edits` applied."""
    lines = physical_lines(source)  # Python's line breaks, as positions count them
    starts = [0]
    for text in lines:
        starts.append(starts[-1] + len(text))

    def offset(line: int, col: int) -> int:
        return starts[min(line - 1, len(lines))] + col

    out = source
    for edit in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        begin, end = offset(edit.line, edit.col), offset(edit.end_line, edit.end_col)
        out = out[:begin] + edit.text + out[end:]
    return out
