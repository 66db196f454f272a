"""The "add a `# cutile: ignore[CTxxx]` comment" code action.

The comment goes at the end of the diagnostic's first line; a suppression comment already there
gets the code added to its list. Lines whose end is inside a string, or that continue with a
backslash, get no action rather than a broken file.
"""

from __future__ import annotations

import re
import tokenize

from cutile.checker.edits import Edit, Fix
from cutile.diagnostics.codes import CODES

from .document import bare_lines
from .syntax import region_tokens

SUPPRESSION = re.compile(r"#\s*cutile:\s*ignore\[(?P<codes>[^\]]*)\]")


Tokens = list[tokenize.TokenInfo] | None


def suppression_fix(source: str, line: int, code: str, lines: list[str] | None = None,
                    tokens: Tokens | None = None) -> Fix | None:
    """None where the registry says the code cannot be suppressed (the checker would not honour
    the comment) or where no comment can be added safely. `lines` (those of `source`, without
    their breaks) and `tokens` (those of the statements around `line`) when the caller has
    them."""
    if not CODES[code].suppressible:
        return None
    lines = bare_lines(source) if lines is None else lines
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    title = f"Suppress {code} on this line (# cutile: ignore[{code}])"
    toks = region_tokens(source, line) if tokens is None else tokens
    comment_col = _comment_column(toks, line)
    if comment_col is not None:
        match = SUPPRESSION.search(text, comment_col)
        if match is not None:
            codes = [c.strip() for c in match.group("codes").split(",") if c.strip()]
            if code in codes:
                return None
            end = match.end("codes")
            return Fix(title, (Edit.insert(line, end, f", {code}" if codes else code),))
    if _continues_or_in_string(toks, line, text):
        return None
    end = len(text.rstrip())
    return Fix(title, (Edit(line, end, line, len(text), f"  # cutile: ignore[{code}]"),))


def _comment_column(tokens: Tokens, line: int) -> int | None:
    if tokens is None:
        return None
    for tok in tokens:
        if tok.type == tokenize.COMMENT and tok.start[0] == line:
            return tok.start[1]
    return None


def _continues_or_in_string(tokens: Tokens, line: int, text: str) -> bool:
    if text.rstrip().endswith("\\"):
        return True
    if tokens is None:
        return True
    return any(
        tok.type == tokenize.STRING
        and tok.start[0] <= line < tok.end[0]
        for tok in tokens
    )
