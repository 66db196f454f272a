"""Where a diagnostic code's documentation lives (`docs/codes.md#ct201`).

In order: the client's `docsUrl` setting (a URL of codes.md), the distribution's `Documentation`
project URL, then docs/codes.md of a source checkout next to the installed package. With none of
them, diagnostics carry no link rather than a made-up one.
"""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

import cutile


def code_anchor(code: str) -> str:
    return code.lower()


def code_url(code: str, docs_url: str | None) -> str | None:
    base = docs_url or default_codes_url()
    # a base with its own fragment (`codes.md#top`): the code's anchor replaces it
    return f"{base.split('#', 1)[0]}#{code_anchor(code)}" if base else None


@functools.cache
def default_codes_url() -> str | None:
    try:
        urls = metadata.metadata("cutile").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation" and url.strip():
            return str(url).strip().rstrip("/") + "/codes.md"
    checkout = Path(cutile.__file__).resolve().parent.parent / "docs" / "codes.md"
    return checkout.as_uri() if checkout.is_file() else None
