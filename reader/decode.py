"""Reading Python source files as Python does: a PEP 263 coding cookie or a BOM, else UTF-8.

Python refuses to run a file whose bytes do not decode, so the checker reports it (CT906 with the
line and column of the problem) instead of checking a guess at its text; a file that cannot be
read at all (permissions, a broken link, a directory or a FIFO under a `.py` name) is a CT906 too.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tokenize

from ..diagnostics import messages as msg
from ..diagnostics.diagnostic import Diagnostic, Span

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BOM = codecs.BOM_UTF8


class UndecodableSource(ValueError):
    """The bytes of a source file cannot be decoded; `line`/`col` locate the problem (1-based
    line, 0-based column in characters of the line's decodable start)."""

    def __init__(self, detail: str, line: int = 1, col: int = 0) -> None:
        super().__init__(detail)
        self.detail = detail
        self.line = line
        self.col = col

    def diagnostic(self, path: str) -> Diagnostic:
        span = Span(path, self.line, self.col, self.line, self.col + 1)
        return msg.UNDECODABLE_FILE.at(span, detail=self.detail)


class NotAFile(OSError):
    """The path names a directory, a FIFO, a socket or a device, not a regular file."""


def read_source(path: str) -> str:
    """Raises OSError (NotAFile included) or UndecodableSource."""
    return decode_source(read_bytes(path))


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file. Opened without blocking (a FIFO named `x.py` would wait for
    a writer forever) and checked after opening, so a file swapped meanwhile is not misread."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(f"it is {_kind(mode)}, not a file")
        return fh.read()


def read_or_report(path: str) -> str | Diagnostic:
    """The text of a file, or the CT906 that says why it cannot be read or decoded."""
    try:
        return read_source(path)
    except UndecodableSource as err:
        return err.diagnostic(path)
    except OSError as err:
        return msg.UNREADABLE_FILE.at(Span(path, 1, 0, 1, 0), detail=why_unreadable(path, err))


def why_unreadable(path: str, err: OSError) -> str:
    """The reason in plain words (the OS's, plus where a broken link points)."""
    if isinstance(err, NotAFile):
        return str(err)
    reason = err.strerror or str(err)
    if os.path.islink(path) and not os.path.exists(path):
        try:
            return f"it is a broken symbolic link to {os.readlink(path)} ({reason})"
        except OSError:
            return f"it is a broken symbolic link ({reason})"
    return reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def decode_source(raw: bytes) -> str:
    """The text of a module's bytes. Raises UndecodableSource (never SyntaxError, LookupError or
    UnicodeDecodeError) for a bad cookie, a BOM that contradicts the cookie or bad bytes."""
    encoding = _encoding(raw)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        data = bytes(err.object)  # the bytes the codec saw (after a BOM it skipped)
        line, col = _locate(data, err.start, encoding)
        why = [_surrogate(data, err.start)] + (
            [] if _declared(raw) else ["the file declares no coding cookie, so it must be UTF-8"])
        detail = f"byte 0x{data[err.start]:02x} on line {line} is not valid {_name(encoding)}"
        raise UndecodableSource("; ".join([detail, *filter(None, why)]), line, col) from None
    except LookupError:  # a codec that exists but is not a text encoding ('hex')
        raise UndecodableSource(f"the coding cookie names {encoding!r}, which is not a text "
                                "encoding", *_cookie_line(raw)) from None
    return text


def _encoding(raw: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as err:  # tokenize reports cookie problems as SyntaxError
        if str(err).startswith("invalid or missing encoding declaration"):
            # bytes of the first lines that are not UTF-8: decoding them as UTF-8 finds the byte
            return "utf-8-sig" if raw.startswith(_BOM) else "utf-8"
        raise UndecodableSource(_cookie_problem(raw, str(err)), *_cookie_line(raw)) from None
    return encoding


def _cookie_problem(raw: bytes, detail: str) -> str:
    declared = _declared(raw)
    if raw.startswith(_BOM) and declared is not None:
        return (f"the file starts with a UTF-8 byte order mark but its coding cookie declares "
                f"{declared!r}; remove one of them")
    if declared is not None and detail.startswith("unknown encoding"):
        return f"the coding cookie names {declared!r}, which is not a known encoding"
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


def _locate(raw: bytes, offset: int, encoding: str) -> tuple[int, int]:
    """(line, column in characters) of a byte offset; the bytes before it on its line decode."""
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode(encoding, errors="replace"))
    return raw.count(b"\n", 0, offset) + 1, column


def _surrogate(raw: bytes, offset: int) -> str:
    """What three bytes 0xED 0xA0-0xBF 0x80-0xBF are: a surrogate, which UTF-8 never encodes
    (editors and other languages' strings write them for unpaired UTF-16 halves)."""
    three = raw[offset:offset + 3]
    if len(three) == 3 and three[0] == 0xED and 0xA0 <= three[1] <= 0xBF and \
            0x80 <= three[2] <= 0xBF:
        point = ((three[0] & 0x0F) << 12) | ((three[1] & 0x3F) << 6) | (three[2] & 0x3F)
        return f"it starts the lone surrogate U+{point:04X}, which UTF-8 does not encode"
    return ""


def _name(encoding: str) -> str:
    return "UTF-8" if encoding.replace("_", "-").lower() in ("utf-8", "utf-8-sig") else encoding
