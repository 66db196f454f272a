"""Which codes are reported: `select` / `ignore` patterns over the code registry.

A pattern is a full code (`CT301`), a prefix (`CT3`, `CT`) or a code name (`use-after-move`).
The most specific matching pattern decides, so `select = ["CT"]` with `ignore = ["CT3"]` drops
CT3xx, and `ignore = ["CT3"]` with `extend-select = ["CT301"]` keeps CT301 only. On a tie, ignore
wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..diagnostics.codes import BY_NAME, CODES


def always_reported(code: str) -> bool:
    """Fatal codes (a broken configuration, a crash) are never filtered or downgraded: a run
    that could not check everything must not pass silently."""
    return CODES[code].fatal


def normalize_pattern(pattern: str) -> str | None:
    """The canonical prefix of a pattern (a name becomes its code); None if it matches nothing."""
    text = pattern.strip()
    named = BY_NAME.get(text.lower())
    if named is not None:
        return named.code
    prefix = text.upper()
    if prefix and any(code.startswith(prefix) for code in CODES) and prefix.startswith("CT"):
        return prefix
    return None


def matches(code: str, pattern: str) -> bool:
    return code.startswith(pattern)


@dataclass(frozen=True)
class Selection:
    """Normalized select/ignore prefixes; `enabled` answers for one code."""

    select: tuple[str, ...] = ("CT",)
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        if always_reported(code):
            return True
        best_select = _longest(code, self.select)
        best_ignore = _longest(code, self.ignore)
        if best_select < 0:
            return False
        return best_select > best_ignore

    def extended(
        self, select: Iterable[str] | None = None, extend: Iterable[str] = (),
        ignore: Iterable[str] = (),
    ) -> Selection:
        """A new selection: `select` replaces the base, `extend` and `ignore` add to it."""
        base = tuple(select) if select is not None else self.select
        return Selection(base + tuple(extend), self.ignore + tuple(ignore))


def _longest(code: str, patterns: tuple[str, ...]) -> int:
    return max((len(p) for p in patterns if matches(code, p)), default=-1)
