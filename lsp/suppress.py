"""The "add a `# cutile: ignore[CTxxx]` comment" code action.

The comment goes at the end of the diagnostic's first line; a suppression comment already there
gets the code added to its list. Lines whose end is inside a string, or that continue with a
backslash, get no action rather than a broken file.
"""

from __future__ import annotations

import io
import re
import tokenize

from cutile.compiler.codes import CODES

from .edits import Edit, Fix

SUPPRESSION = re.compile(r"#\s*cutile:\s*ignore\[(?P<codes>[^\]]*)\]")


def suppression_fix(source: str, line: int, code: str) -> Fix | None:
    """None where the registry says the code cannot be suppressed (the checker would not honour
    the comment) or where no comment can be added safely."""
    if not CODES[code].suppressible:
        return None
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    title = f"Suppress {code} on this line (# cutile: ignore[{code}])"
    comment_col = _comment_column(source, line)
    if comment_col is not None:
        match = SUPPRESSION.search(text, comment_col)
        if match is not None:
            codes = [c.strip() for c in match.group("codes").split(",") if c.strip()]
            if code in codes:
                return None
            end = match.end("codes")
            return Fix(title, (Edit.insert(line, end, f", {code}" if codes else code),))
    if _continues_or_in_string(source, line, text):
        return None
    end = len(text.rstrip())
    return Fix(title, (Edit(line, end, line, len(text), f"  # cutile: ignore[{code}]"),))


def _tokens(source: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _comment_column(source: str, line: int) -> int | None:
    tokens = _tokens(source)
    if tokens is None:
        return None
    for tok in tokens:
        if tok.type == tokenize.COMMENT and tok.start[0] == line:
            return tok.start[1]
    return None


def _continues_or_in_string(source: str, line: int, text: str) -> bool:
    if text.rstrip().endswith("\\"):
        return True
    tokens = _tokens(source)
    if tokens is None:
        return True
    return any(
        tok.type == tokenize.STRING
        and tok.start[0] <= line < tok.end[0]
        for tok in tokens
    )
