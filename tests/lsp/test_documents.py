"""The server's copy of a document: LSP line breaks, a byte order mark, non-Python documents and
client mistakes about documents, through the real server over stdio."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from cutile.checker.analyze import analyze_source
from cutile.lsp.document import split_lines

from .client import RecordingClient, initialize_params, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

# A page break line (PEP 8's ^L) above a kernel, U+2028 and NEL inside a string and a comment:
# str.splitlines breaks at all three, LSP and Python at none. Line 15 has a CT301 at its end.
ODD_BREAKS = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32

\x0c
@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))


def main() -> None:
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    a = 1  # a\u2028b
    s = "c\x85d\u2029e"
    add(z, x).sync(); print(a, s, z)
    z, x = add(z, x).sync()
'''
BROKEN_LINE = "    add(z, x).sync(); print(a, s, z)"


@pytest_lsp.fixture(config=server_config(), scope="module")
async def client(lsp_client: RecordingClient) -> None:
    await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()


def _offset(text: str, position: types.Position) -> int:
    lines = split_lines(text)
    return sum(len(line) for line in lines[:position.line]) + position.character


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    for edit in sorted(edits, key=lambda e: _offset(text, e.range.start), reverse=True):
        text = (text[:_offset(text, edit.range.start)] + edit.new_text
                + text[_offset(text, edit.range.end):])
    return text


def _cli(text: str, path: Path) -> list[tuple[str, int, int, int, int]]:
    return [(d.code, d.span.line - 1, d.span.col, d.span.end_line - 1, d.span.end_col)
            for d in analyze_source(text, str(path))]


def _lsp(diagnostics: list[types.Diagnostic]) -> list[tuple[str, int, int, int, int]]:
    return [(str(d.code), d.range.start.line, d.range.start.character, d.range.end.line,
             d.range.end.character) for d in diagnostics]


async def test_odd_line_breaks_keep_positions(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "breaks.py"
    uri = client.open(path, ODD_BREAKS)
    found = await client.wait_diagnostics(uri, 1)
    want = _cli(ODD_BREAKS, path)
    assert [w[0] for w in want] == ["CT301"] and _lsp(found) == want
    line = ODD_BREAKS.split("\n").index(BROKEN_LINE)
    col = BROKEN_LINE.rindex("z")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=col)))
    assert hover is not None and hover.range is not None
    assert (hover.range.start.line, hover.range.start.character) == (line, col)
    assert isinstance(hover.contents, types.MarkupContent)
    assert "moved into a launch" in hover.contents.value


async def test_suppression_lands_at_the_end_of_the_line(client: RecordingClient,
                                                        tmp_path: Path) -> None:
    uri = client.open(tmp_path / "suppress_breaks.py", ODD_BREAKS)
    [diag] = await client.wait_diagnostics(uri, 1)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    assert actions is not None
    [suppress] = [a for a in actions if isinstance(a, types.CodeAction)
                  and a.title.startswith("Suppress CT301")]
    assert suppress.edit is not None and suppress.edit.changes is not None
    fixed = _apply(ODD_BREAKS, suppress.edit.changes[uri])
    assert fixed == ODD_BREAKS.replace(BROKEN_LINE, BROKEN_LINE + "  # cutile: ignore[CT301]")


async def test_incremental_edit_below_odd_breaks(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "edit_breaks.py"
    uri = client.open(path, ODD_BREAKS)
    await client.wait_diagnostics(uri, 1)
    last = "    z, x = add(z, x).sync()"
    line = ODD_BREAKS.split("\n").index(last)
    added = "\n    w = ct.zeros((4,), 'f99')"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=len(last)),
                              end=types.Position(line=line, character=len(last))),
            text=added)]))
    edited = ODD_BREAKS.replace(last, last + added)
    found = await client.wait_diagnostics(uri, 2)
    want = _cli(edited, path)
    assert "CT406" in [w[0] for w in want] and _lsp(found) == want


async def test_a_byte_order_mark_is_skipped(client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "bom.py"
    uri = client.open(path, "\ufeff" + ODD_BREAKS)
    found = await client.wait_diagnostics(uri, 1)
    want = _cli(ODD_BREAKS, path)  # what the CLI reports: it decodes the mark away
    assert [w[0] for w in want] == ["CT301"] and _lsp(found) == want


async def test_a_byte_order_mark_keeps_first_line_columns(client: RecordingClient,
                                                          tmp_path: Path) -> None:
    text = "\ufeffx: int = (\n"
    uri = client.open(tmp_path / "bom_syntax.py", text)
    [diag] = await client.wait_diagnostics(uri, 1)
    assert diag.code == "CT100"
    # the client counts the mark: the "(" is its character 10
    assert (diag.range.start.line, diag.range.start.character) == (0, 10)


@pytest.mark.parametrize(("name", "language"), [("README.md", "markdown"),
                                                ("notes.txt", "plaintext"),
                                                ("notes.txt", "python"),
                                                ("script.py", "markdown")])
async def test_non_python_documents_get_nothing(client: RecordingClient, tmp_path: Path,
                                                name: str, language: str) -> None:
    uri = (tmp_path / name).resolve().as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1,
                                             text="hello world (\n")))
    probe = client.open(tmp_path / "probe.py", "x = (\n")  # published after the other's turn
    await client.wait_diagnostics(probe, 1)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=1)))
    assert hover is None
    assert all(p.uri != uri for p in client.published)


async def test_an_untitled_python_document_is_checked(client: RecordingClient) -> None:
    uri = "untitled:Untitled-1"
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                             text="x = (\n")))
    assert [d.code for d in await client.wait_diagnostics(uri, 1)] == ["CT100"]


async def test_change_to_an_unopened_document_is_a_warning(client: RecordingClient,
                                                           tmp_path: Path) -> None:
    before = len(client.log_messages)
    uri = (tmp_path / "never.py").resolve().as_uri()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1\n")]))
    await client.until(lambda: len(client.log_messages) > before)
    assert [(m.type, re.sub(r"file:\S+", "URI", m.message))
            for m in client.log_messages[before:]] == [
        (types.MessageType.Warning, "ignored a change to a document that is not open: URI")]


KERNEL_A = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32
from pkg.b import kb


def host_a() -> None:
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    z, x = kb(z, x).sync()
    print(x)
'''
KERNEL_B = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f32


@ct.kernel
def kb(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    z.store(ct.load_tile_like(x, z))
'''


async def test_saving_a_module_rechecks_its_importers(client: RecordingClient,
                                                      tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    a, b = tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "b.py"
    a.write_text(KERNEL_A)
    b.write_text(KERNEL_B)
    uri_a, uri_b = client.open(a, KERNEL_A), client.open(b, KERNEL_B)
    assert await client.wait_diagnostics(uri_a, 1) == []
    await client.wait_diagnostics(uri_b, 1)
    count = len(client.published)
    changed = KERNEL_B.replace("B: Const[int]", "y: Tensor[f32, (-1,)], B: Const[int]")
    client.replace(uri_b, changed, 2)
    b.write_text(changed)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri_b)))
    await client.until(lambda: any(p.uri == uri_a for p in client.published[count:]))
    [found] = await client.wait_diagnostics(uri_a, 1)
    assert (found.code, found.range.start.line) == ("CT406", 8)
    assert found.message == "'kb' is missing the argument 'y'"
