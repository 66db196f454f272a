"""Text edits and fixes in cutile coordinates (1-based lines, code-point columns)."""

from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False


def apply(source: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """`source` with non-overlapping `edits` applied (tests use it to check fixes)."""
    lines = source.splitlines(keepends=True)
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
