"""Suppression comments: `# cutile: ignore[CT301, CT2]`, a bare `# cutile: ignore`, and
`# cutile: ignore-file[...]` in the comments at the top of a file.

A line suppression covers every line of the logical statement it sits on, so a comment on any line
of a multi-line call silences a finding reported on another line of it. Comments are found with
`tokenize`, so text inside strings never counts. Unused suppressions become CT902 and unknown codes
CT903. Whether a code can be suppressed is the registry's (`Code.suppressible`): a syntax error
(CT100) and the CT9xx findings cannot; a comment aimed at one is reported, not honoured.
"""

from __future__ import annotations

import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..diagnostics import messages as msg
from ..diagnostics.codes import CODES
from ..diagnostics.diagnostic import Diagnostic, Span
from ..reader.source import tokenize_text
from .selection import normalize_pattern

_DIRECTIVE = re.compile(
    r"#\s*cutile:\s*(?P<kind>ignore-file|ignore)(?![\w-])(?:\s*\[(?P<codes>[^\]]*)\])?")
_ENTRY = re.compile(r"[^,\s]+")
_SKIP = frozenset({tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
                   tokenize.ENDMARKER})


@dataclass
class Suppression:
    span: Span  # the directive inside the comment
    file_level: bool
    entries: tuple[str, ...] | None  # normalized code prefixes; None: every code
    anchor: int  # first line of the statement the comment belongs to
    misplaced: bool = False  # an ignore-file after the top of the file
    used: set[str] = field(default_factory=set)
    used_any: bool = False
    refused: list[str] = field(default_factory=list)  # unsuppressible codes it would have covered

    def covers(self, code: str) -> bool:
        if self.misplaced:
            return False
        if self.entries is None:
            return True
        return any(code.startswith(e) for e in self.entries)

    def mark(self, code: str) -> None:
        self.used_any = True
        if self.entries is not None:
            self.used.update(e for e in self.entries if code.startswith(e))


@dataclass
class Suppressions:
    line: dict[int, list[Suppression]] = field(default_factory=dict)  # by anchor line
    file: list[Suppression] = field(default_factory=list)
    statement_start: dict[int, int] = field(default_factory=dict)  # lines of multi-line stmts
    problems: list[Diagnostic] = field(default_factory=list)  # CT903

    def all(self) -> Iterable[Suppression]:
        yield from self.file
        for group in self.line.values():
            yield from group


def scan(source: str, path: str) -> Suppressions:
    """Every suppression comment of a file, and the line ranges of its multi-line statements."""
    found = Suppressions()
    if "cutile:" not in source:  # the common case costs one substring search
        return found
    start: int | None = None  # first line of the current logical line
    header = True  # still in the leading comments (a module docstring may come first)
    docstring: bool | None = None  # None: no code yet; True: a lone string so far
    # up to a syntax error (the frontend reports it): what was found before it is kept
    for tok in tokenize_text(source)[0]:
        kind = tok.type
        if kind == tokenize.COMMENT:
            _comment(found, tok, path, start, header)
        elif kind == tokenize.NEWLINE:
            if start is not None and tok.start[0] > start:
                for line in range(start, tok.start[0] + 1):
                    found.statement_start[line] = start
            start = None
            if docstring:
                docstring = False
        elif kind not in _SKIP:
            if start is None:
                start = tok.start[0]
            if header:
                if docstring is None and kind == tokenize.STRING:
                    docstring = True
                elif not (docstring and kind == tokenize.STRING):
                    header = False
    return found


def _comment(found: Suppressions, tok: tokenize.TokenInfo, path: str, start: int | None,
             header: bool) -> None:
    line, col = tok.start
    for match in _DIRECTIVE.finditer(tok.string):
        file_level = match.group("kind") == "ignore-file"
        span = Span(path, line, col + match.start(), line, col + match.end())
        entries = _entries(found, match, path, line, col)
        supp = Suppression(span, file_level, entries, start if start is not None else line,
                           misplaced=file_level and not (header and start is None))
        if file_level:
            found.file.append(supp)
        else:
            found.line.setdefault(supp.anchor, []).append(supp)


def _entries(found: Suppressions, match: re.Match[str], path: str, line: int,
             col: int) -> tuple[str, ...] | None:
    codes = match.group("codes")
    if codes is None:
        return None
    offset = col + match.start("codes")
    entries: list[str] = []
    items = list(_ENTRY.finditer(codes))
    if not items:
        span = Span(path, line, col + match.start(), line, col + match.end())
        found.problems.append(msg.EMPTY_SUPPRESSION.at(span))
    for item in items:
        code = normalize_pattern(item.group())
        if code is None:
            span = Span(path, line, offset + item.start(), line, offset + item.end())
            found.problems.append(msg.UNKNOWN_SUPPRESSION_CODE.at(
                span, code=item.group(), hint=_hint(item.group())))
        else:
            entries.append(code)
    return tuple(entries)


def _hint(text: str) -> str:
    digits = re.sub(r"\D", "", text)
    guess = f"CT{digits}" if digits else ""
    return f"; did you mean {guess}?" if guess in CODES and guess != text else ""


def apply(diags: list[Diagnostic], found: Suppressions) -> list[Diagnostic]:
    """The diagnostics that no suppression covers; marks the suppressions that were used, and
    those that name a finding the registry says cannot be suppressed."""
    if not found.line and not found.file:
        return diags
    kept: list[Diagnostic] = []
    for diag in diags:
        hits = [s for s in found.file if s.covers(diag.code)]
        anchor = found.statement_start.get(diag.span.line, diag.span.line)
        hits += [s for s in found.line.get(anchor, ()) if s.covers(diag.code)]
        if not diag.entry.suppressible:
            for supp in hits:
                if diag.code not in supp.refused:
                    supp.refused.append(diag.code)
            kept.append(diag)
            continue
        for supp in hits:
            supp.mark(diag.code)
        if not hits:
            kept.append(diag)
    return kept


def unused(found: Suppressions) -> list[Diagnostic]:
    """CT902 for every suppression (or listed code) that silenced nothing; one that only met
    unsuppressible findings says so."""
    out: list[Diagnostic] = []
    for supp in found.all():
        if supp.misplaced:
            out.append(msg.MISPLACED_FILE_SUPPRESSION.at(supp.span))
        elif supp.refused and not supp.used_any:
            out.append(msg.UNSUPPRESSIBLE.at(supp.span, codes=_or(supp.refused)))
        elif supp.entries is None:
            if not supp.used_any:
                out.append(msg.UNUSED_FILE_SUPPRESSION.at(supp.span, codes="cutile")
                           if supp.file_level else msg.UNUSED_SUPPRESSION_ANY.at(supp.span))
        else:
            idle = [e for e in supp.entries if e not in supp.used]
            if idle:
                message = msg.UNUSED_FILE_SUPPRESSION if supp.file_level else \
                    msg.UNUSED_SUPPRESSION
                out.append(message.at(supp.span, codes=_or(idle)))
    return out


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
