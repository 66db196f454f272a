"""`cutile-check --explain CT301`: a code's registry entry, as text; `--explain CT3` lists the
codes of a prefix."""

from __future__ import annotations

import textwrap

from ..diagnostics.codes import CODES, Code, lookup


def explain(code_or_name: str) -> str | None:
    """The entry for a code (`CT301`) or name (`use-after-move`), one line per code for a
    prefix (`CT3`), or None if nothing matches."""
    entry = lookup(code_or_name)
    if entry is not None:
        return render(entry)
    prefix = code_or_name.strip().upper()
    codes = [c for c in CODES.values() if prefix.startswith("CT") and c.code.startswith(prefix)]
    if not codes:
        return None
    width = max(len(c.name) for c in codes)
    return "".join(f"{c.code}  {c.name:<{width}}  {c.summary}\n" for c in codes)


def render(entry: Code) -> str:
    parts = [f"{entry.code} ({entry.name}): {entry.summary}", "",
             textwrap.fill(entry.doc, width=88), "", textwrap.fill(entry.behaviour, width=88)]
    if entry.example:
        parts += ["", "Example:", "", textwrap.indent(entry.example, "    ")]
    return "\n".join(parts) + "\n"
