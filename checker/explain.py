"""`cutile-check --explain CT301`: a code's registry entry, as text."""

from __future__ import annotations

import textwrap

from ..diagnostics.codes import Code, lookup


def explain(code_or_name: str) -> str | None:
    """The entry for a code (`CT301`) or name (`use-after-move`), or None if there is none."""
    entry = lookup(code_or_name)
    return None if entry is None else render(entry)


def render(entry: Code) -> str:
    parts = [f"{entry.code} ({entry.name}): {entry.summary}", "",
             textwrap.fill(entry.doc, width=88), "", textwrap.fill(entry.behaviour, width=88)]
    if entry.example:
        parts += ["", "Example:", "", textwrap.indent(entry.example, "    ")]
    return "\n".join(parts) + "\n"
