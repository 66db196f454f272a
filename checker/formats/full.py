"""Each finding with its source line and carets, and every note with a frame of its own."""

from __future__ import annotations

from ...diagnostics.diagnostic import render_full
from ...reader.decode import UndecodableSource, read_source
from ..analyze import Report


def render(report: Report) -> str:
    lines: dict[str, list[str] | None] = {}

    def lines_of(path: str) -> list[str] | None:
        if path not in lines:
            text = report.sources.get(path)
            if text is None:  # a note in a file that was not checked itself (an import)
                try:
                    text = read_source(path)
                except (OSError, UndecodableSource):
                    text = None
            lines[path] = None if text is None else text.splitlines()
        return lines[path]

    blocks = [render_full(d, lines_of(d.span.path), lines_of) for d in report.diagnostics]
    return "".join(block + "\n\n" for block in blocks)
