"""Conversions between cutile spans (1-based lines, code-point columns) and LSP positions.

LSP counts columns in the negotiated position encoding (UTF-16 unless the client offers another),
so a column after an astral-plane character differs between the two.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from cutile.diagnostics.diagnostic import Span

from .document import BOM

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


def _units(char: str, encoding: str) -> int:
    point = ord(char)
    if encoding == UTF32:
        return 1
    if encoding == UTF8:
        return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
    return 2 if point >= 0x10000 else 1


def _line(lines: Sequence[str], index: int) -> str:
    return lines[index].rstrip("\r\n") if 0 <= index < len(lines) else ""


def _bom(lines: Sequence[str], index: int) -> int:
    """1 on a first line that starts with a byte order mark: the checker's columns skip it
    (document.analysed_text), the client's count it."""
    return 1 if index == 0 and lines and lines[0].startswith(BOM) else 0


def to_client_column(text: str, column: int, encoding: str = UTF16) -> int:
    """Code-point `column` of `text` in client code units (clamped to the line's end)."""
    return sum(_units(c, encoding) for c in text[: max(0, column)])


def from_client_column(text: str, units: int, encoding: str = UTF16) -> int:
    """Client code-unit offset in `text` as a code-point column (clamped to the line's end)."""
    seen = 0
    for index, char in enumerate(text):
        if seen >= units:
            return index
        seen += _units(char, encoding)
    return len(text)


def to_position(lines: Sequence[str], line: int, column: int, encoding: str) -> types.Position:
    """1-based `line` and code-point `column` as an LSP position; `lines` as LSP splits them
    (document.split_lines)."""
    index = max(0, line - 1)
    if index >= len(lines):
        return types.Position(line=len(lines), character=0)
    column += _bom(lines, index)
    return types.Position(line=index, character=to_client_column(_line(lines, index), column,
                                                                 encoding))


def to_range(lines: Sequence[str], span: Span, encoding: str = UTF16) -> types.Range:
    """An LSP range covering `span` of a document whose text is `lines`."""
    return types.Range(start=to_position(lines, span.line, span.col, encoding),
                       end=to_position(lines, span.end_line, span.end_col, encoding))


def from_position(lines: Sequence[str], position: types.Position,
                  encoding: str = UTF16) -> tuple[int, int]:
    """An LSP position as (1-based line, code-point column)."""
    text = _line(lines, position.line)
    column = from_client_column(text, position.character, encoding)
    return position.line + 1, max(0, column - _bom(lines, position.line))


def contains(span: Span, line: int, column: int) -> bool:
    """Whether (1-based line, code-point column) falls inside `span` (end inclusive, for hovers)."""
    start = (span.line, span.col)
    end = (span.end_line, span.end_col)
    return start <= (line, column) <= end
