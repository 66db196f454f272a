"""Reading Python source files as Python does: a PEP 263 coding cookie or a BOM, else UTF-8.

Python refuses to run a file whose bytes do not decode, so the checker reports it (CT100 with the
line and column of the problem) instead of checking a guess at its text.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BOM = codecs.BOM_UTF8


class UndecodableSource(ValueError):
    """The bytes of a source file cannot be decoded; `line`/`col` locate the problem (1-based
    line, 0-based column of the line's bytes)."""

    def __init__(self, detail: str, line: int = 1, col: int = 0) -> None:
        super().__init__(detail)
        self.detail = detail
        self.line = line
        self.col = col

    def diagnostic(self, path: str) -> Diagnostic:
        span = Span(path, self.line, self.col, self.line, self.col + 1)
        return msg.UNDECODABLE_FILE.at(span, detail=self.detail)


def read_source(path: str) -> str:
    """Raises OSError or UndecodableSource."""
    with open(path, "rb") as fh:
        return decode_source(fh.read())


def read_or_report(path: str) -> str | Diagnostic:
    """The text of a file, or the CT100 that says why its bytes do not decode (OSError passes)."""
    try:
        return read_source(path)
    except UndecodableSource as err:
        return err.diagnostic(path)


def decode_source(raw: bytes) -> str:
    """The text of a module's bytes. Raises UndecodableSource (never SyntaxError, LookupError or
    UnicodeDecodeError) for a bad cookie, a BOM that contradicts the cookie or bad bytes."""
    encoding = _encoding(raw)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        line, col = _locate(raw, err.start)
        raise UndecodableSource(
            f"byte 0x{raw[err.start]:02x} on line {line} is not valid {_name(encoding)}"
            + ("" if _declared(raw) else " (the file declares no coding cookie, so it must be "
               "UTF-8)"), line, col) from None
    except LookupError:  # a codec that exists but is not a text encoding ('hex')
        raise UndecodableSource(f"the coding cookie names {encoding!r}, which is not a text "
                                "encoding", *_cookie_line(raw)) from None
    return text


def _encoding(raw: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as err:  # tokenize reports cookie problems as SyntaxError
        raise UndecodableSource(_cookie_problem(raw, str(err)), *_cookie_line(raw)) from None
    return encoding


def _cookie_problem(raw: bytes, detail: str) -> str:
    declared = _declared(raw)
    if raw.startswith(_BOM) and declared is not None:
        return (f"the file starts with a UTF-8 byte order mark but its coding cookie declares "
                f"{declared!r}; remove one of them")
    if declared is not None and detail.startswith("unknown encoding"):
        return f"the coding cookie names {declared!r}, which is not a known encoding"
    if detail.startswith("invalid or missing encoding declaration"):
        return ("the first lines are not valid UTF-8 and declare no encoding; save the file as "
                "UTF-8 or add a coding cookie")
    return detail


def _declared(raw: bytes) -> str | None:
    """The encoding a cookie on the first two lines names (as written), if any."""
    for line in raw.removeprefix(_BOM).splitlines()[:2]:
        found = _COOKIE.match(line)
        if found:
            return found.group(1).decode("ascii", errors="replace")
    return None


def _cookie_line(raw: bytes) -> tuple[int, int]:
    for number, line in enumerate(raw.removeprefix(_BOM).splitlines()[:2], start=1):
        if _COOKIE.match(line):
            return number, 0
    return 1, 0


def _locate(raw: bytes, offset: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, offset - line_start


def _name(encoding: str) -> str:
    return "UTF-8" if encoding.replace("_", "-").lower() in ("utf-8", "utf-8-sig") else encoding
