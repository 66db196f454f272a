"""Reading Python source files as Python does: a PEP 263 coding cookie or a BOM, else UTF-8."""

from __future__ import annotations

import io
import tokenize


def read_source(path: str) -> str:
    """Raises OSError, SyntaxError (a bad coding cookie) or UnicodeDecodeError."""
    with open(path, "rb") as fh:
        return decode_source(fh.read())


def decode_source(raw: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding)
