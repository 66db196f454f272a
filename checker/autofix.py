"""Applying fixes: which fix of each finding to apply, and the fix-and-re-check loop of
`cutile-check --fix` (ruff's: apply, analyse again, repeat a bounded number of times).

`plan_fixes` is pure (source text and findings in, edits out); `fix_source` runs the loop with a
caller's `check` function, so the command line and tests share it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..diagnostics.diagnostic import Diagnostic
from .edits import Applicability, Edit, Fix, apply, overlaps
from .fixes import Aliases, module_aliases, quick_fixes
from .regions import Outline, outline

# Rounds of fixing before giving up: a fix's re-check may show another fixable finding (a second
# use of a launch's argument), but each round must fix something, so few rounds are needed.
MAX_ROUNDS = 10


def applicable(fix: Fix, unsafe: bool) -> bool:
    return fix.applicability is Applicability.SAFE or (
        unsafe and fix.applicability is Applicability.UNSAFE)


class FixFinder:
    """The fixes of findings in one text, sharing its outline and aliases."""

    def __init__(self, source: str, path: str) -> None:
        self.source, self.path = source, path
        self._outline: Outline | None = None
        self._aliases: Aliases | None = None

    def fixes(self, diag: Diagnostic) -> list[Fix]:
        if diag.entry.fix is None or diag.span.path != self.path:
            return []
        if self._outline is None:
            self._outline = outline(self.source)
            if self._outline is None:
                return []  # the text does not parse: no fix applies
        if self._aliases is None:
            self._aliases = module_aliases(self.source, self.path)
        return quick_fixes(self.source, diag, self._outline, self._aliases)

    def fix(self, diag: Diagnostic, unsafe: bool) -> Fix | None:
        """The one fix `--fix` applies to a finding: its first applicable one."""
        return next((f for f in self.fixes(diag) if applicable(f, unsafe)), None)


@dataclass(frozen=True)
class Plan:
    edits: tuple[Edit, ...]
    fixed: tuple[Diagnostic, ...]  # the findings these edits fix


def plan_fixes(source: str, path: str, diagnostics: Iterable[Diagnostic], unsafe: bool) -> Plan:
    """One fix per fixable finding; a fix whose edits overlap one already taken, or that
    changes what another of its group changes, waits for the next round (the re-check
    decides whether it is still needed). One rewrite that fixes several findings counts them
    all."""
    finder = FixFinder(source, path)
    taken: list[Fix] = []
    fixed: list[Diagnostic] = []
    for diag in diagnostics:
        fix = finder.fix(diag, unsafe)
        if fix is None:
            continue
        if fix not in taken:
            if any(overlaps(fix.edits, t.edits) or (fix.group is not None and fix.group == t.group)
                   for t in taken):
                continue
            taken.append(fix)
        fixed.append(diag)
    return Plan(tuple(e for f in taken for e in f.edits), tuple(fixed))


@dataclass(frozen=True)
class Fixed:
    source: str  # the text after every round
    diagnostics: list[Diagnostic]  # its findings
    fixed: int  # findings fixed on the way


def fix_source(source: str, path: str, diagnostics: list[Diagnostic],
               check: Callable[[str], list[Diagnostic]], unsafe: bool) -> Fixed:
    """Fix, re-check, repeat until nothing more is fixable (at most MAX_ROUNDS rounds). A
    round whose edits would leave text Python cannot parse is dropped (never written)."""
    fixed = 0
    seen = {source}
    for _ in range(MAX_ROUNDS):
        plan = plan_fixes(source, path, diagnostics, unsafe)
        if not plan.edits:
            break
        new = apply(source, plan.edits)
        if new in seen or outline(new) is None:
            break
        seen.add(new)
        source, fixed = new, fixed + len(plan.fixed)
        diagnostics = check(source)
    return Fixed(source, diagnostics, fixed)


def fixable(sources: dict[str, str], diagnostics: Sequence[Diagnostic]) -> tuple[int, int]:
    """How many findings `--fix` would fix, and how many more `--unsafe-fixes` would."""
    finders: dict[str, FixFinder] = {}
    safe = unsafe = 0
    for diag in diagnostics:
        source = sources.get(diag.span.path)
        if diag.entry.fix is None or source is None:
            continue
        finder = finders.setdefault(diag.span.path, FixFinder(source, diag.span.path))
        fixes = finder.fixes(diag)
        if any(applicable(f, False) for f in fixes):
            safe += 1
        elif any(applicable(f, True) for f in fixes):
            unsafe += 1
    return safe, unsafe
