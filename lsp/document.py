"""The server's copy of a document, with LSP's line breaks.

pygls splits a document with `str.splitlines`, which also breaks at form feeds, U+2028, NEL and
other separators; LSP positions, like Python, count lines only at \\r\\n, \\r and \\n. A page
break (^L) line would otherwise shift every position below it and corrupt incremental edits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pygls.workspace import TextDocument, Workspace

from ..checker.regions import physical_lines

BOM = "\ufeff"
# the lines of a source as LSP numbers them, each with its line break: Python's own lines
split_lines = physical_lines


def bare_lines(source: str) -> list[str]:
    """The lines of `source` as LSP numbers them, without their breaks."""
    return [line.rstrip("\r\n") for line in split_lines(source)]


def analysed_text(source: str) -> str:
    """The text the checker sees: without a leading byte order mark, as Python skips it in a file
    (the CLI decodes one away). Positions keep counting it (positions.py)."""
    return source[1:] if source.startswith(BOM) else source


class LspTextDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return tuple(split_lines(self.source))


class LspWorkspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None,
                              version: int | None = None, language_id: str | None = None,
                              ) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec)


def adopt(workspace: Any) -> None:
    """Make pygls's workspace (built in its own `initialize` handling) create LSP documents."""
    if isinstance(workspace, Workspace) and not isinstance(workspace, LspWorkspace):
        workspace.__class__ = LspWorkspace
