"""Hover text: a kernel name's tile type, a host name's ownership state.

The compiler reports the names a kernel binds (assignment targets). A use of a name shows the
type of the latest binding of that name before it in the same function; every binding of a name
has the same type, or the kernel has a CT212 error.

The host checker reports ownership facts (`cutile.checker.host.ownership_view`): the state of a
tensor, partition or launch at each name it met. A name shows the latest fact at its own position;
a name the analysis did not reach (e.g. inside a lambda) shows the latest fact before it in the
same scope, unless the name was bound again in between (to something the analysis does not know).

A host API call or property (`zeros` in `ct.zeros(...)`, `narrow` in `t.narrow(...)`) shows its
registry entry (compiler/hostapi): the declaration, what it does, its ownership effect and its
codes; the checker says where it met one and on what (`OwnershipView.api`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cutile.checker.host import NameSite, OwnershipFact, OwnershipView
from cutile.compiler.hostapi import HOST_API
from cutile.diagnostics.diagnostic import Span

from .engine import TypedName
from .positions import contains
from .syntax import NameIndex, name_index


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    span: Span


def hover_at(names: Sequence[TypedName], source: str, line: int, col: int,
             index_at: Callable[[int], NameIndex | None] | None = None) -> HoverInfo | None:
    """The type of the name under (1-based line, code-point column), if a kernel binds it.
    `index_at(line)` gives a `name_index` covering the line when the caller keeps them."""
    if not names:
        return None
    bound = [n for n in names if contains(n.span, line, col)]
    if bound:
        return _info(bound[0], bound[0].span)
    index = index_at(line) if index_at is not None else name_index(source)
    use = index.name_at(line, col) if index is not None else None
    scope = index.function_at(line) if index is not None else None
    if use is None or scope is None:
        return None
    name, where = use
    earlier = [n for n in names if n.name == name and _inside(n.span, scope)
               and (n.span.line, n.span.col) < (where.line, where.col)]
    if not earlier:
        return None
    latest = max(earlier, key=lambda n: (n.span.line, n.span.col))
    return _info(latest, where)


def _info(name: TypedName, span: Span) -> HoverInfo:
    return HoverInfo(f"```python\n{name.name}: {name.type_text}\n```", span)


def _inside(span: Span, lines: tuple[int, int]) -> bool:
    return lines[0] <= span.line <= lines[1]


def ownership_hover(view: OwnershipView, line: int, col: int) -> HoverInfo | None:
    """The ownership state of the host name under (1-based line, code-point column)."""
    site = next((n for n in view.names if contains(n.span, line, col)), None)
    if site is None:
        return None
    facts = [f for f in view.facts if f.name == site.name and f.scope == site.scope]
    here = [f for f in facts if f.span == site.span]
    if here:
        return _state(here[-1], site.span)
    if site.binds:
        return None  # bound to something the analysis does not follow
    start = _start(site.span)
    earlier = [(i, f) for i, f in enumerate(facts) if _start(f.span) < start]
    if not earlier:
        return None
    _, latest = max(earlier, key=lambda item: (_start(item[1].span), item[0]))
    if any(_rebinds(n, site, latest) for n in view.names):
        return None
    return _state(latest, site.span)


def _start(span: Span) -> tuple[int, int]:
    return (span.line, span.col)


def _rebinds(other: NameSite, site: NameSite, fact: OwnershipFact) -> bool:
    return (other.binds and other.name == site.name and other.scope == site.scope
            and _start(fact.span) < _start(other.span) < _start(site.span))


def _state(fact: OwnershipFact, span: Span) -> HoverInfo:
    return HoverInfo(f"`{fact.name}`: {fact.summary}", span)


def api_hover(view: OwnershipView, line: int, col: int) -> HoverInfo | None:
    """The host API entry whose name is under (1-based line, code-point column)."""
    site = next((a for a in view.api if contains(a.span, line, col)), None)
    entry = HOST_API.get((site.receiver, site.name)) if site is not None else None
    if site is None or entry is None:
        return None
    return HoverInfo(entry.markdown(), site.span)
