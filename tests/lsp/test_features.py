"""Hover, inlay hints and code actions through the real server over stdio."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from cutile.checker.analyze import analyze_source
from cutile.checker.edits import Edit, apply

from .client import RecordingClient, initialize_params, server_config
from .test_diagnostics import BAD_SIGNATURE, KNOWN_BAD

pytestmark = pytest.mark.asyncio(loop_scope="module")

TYPED = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    tx = ct.load_tile_like(x, z)
    𝔶 = tx + tx
    z.store(𝔶)
'''


@pytest_lsp.fixture(config=server_config(), scope="module")
async def client(lsp_client: RecordingClient) -> None:
    await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()


def _edits(action: types.CodeAction, uri: str) -> list[Edit]:
    assert action.edit is not None and action.edit.changes is not None
    return [Edit(e.range.start.line + 1, e.range.start.character, e.range.end.line + 1,
                 e.range.end.character, e.new_text) for e in action.edit.changes[uri]]


async def test_hover_shows_the_type(client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "hover.py", TYPED)
    await client.wait_diagnostics(uri, 1)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=6, character=5)))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "tx: Tile[f32, (128,)]" in hover.contents.value
    assert hover.range == types.Range(start=types.Position(line=6, character=4),
                                      end=types.Position(line=6, character=6))
    # A use shows the type of the binding before it; "𝔶" is two UTF-16 units wide.
    use = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=8, character=13)))
    assert use is not None and isinstance(use.contents, types.MarkupContent)
    assert "y: Tile[f32, (128,)]"  # Python folds 𝔶 to y (NFKC) in use.contents.value
    assert use.range == types.Range(start=types.Position(line=8, character=12),
                                    end=types.Position(line=8, character=14))
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=2)))
    assert nothing is None


HOST = TYPED + '''

x = ct.ones((1024,), f32)
zp = ct.zeros((1024,), f32).partition((128,))
op = add(zp, x)
zp, x = op.sync()
'''


async def _hover(client: RecordingClient, uri: str, line: int, character: int) -> str | None:
    got = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character)))
    if got is None:
        return None
    assert isinstance(got.contents, types.MarkupContent)
    return got.contents.value


async def test_hover_shows_ownership_in_host_code(client: RecordingClient,
                                                  tmp_path: Path) -> None:
    uri = client.open(tmp_path / "owned.py", HOST)
    assert await client.wait_diagnostics(uri, 1) == []
    # `op = add(zp, x)` is line 14 (0-based 13): zp moves into the launch, x is leased.
    assert await _hover(client, uri, 13, 10) == (
        "`zp`: moved into a launch of 'add' at line 14 (not yet synced)")
    assert await _hover(client, uri, 13, 13) == (
        "`x`: live tensor (f32, shape (1024,)), read by a pending launch of 'add' (line 14)")
    assert await _hover(client, uri, 13, 1) == "`op`: launch of 'add' (line 14), not yet run"
    # Rebound from .sync(): live again.
    assert await _hover(client, uri, 14, 0) == (
        "`zp`: partition, tile (128,) (f32, shape (1024,), grid (8,))")
    assert await _hover(client, uri, 14, 4) == "`x`: live tensor (f32, shape (1024,))"
    # Kernel names keep their tile types in the same file.
    tile = await _hover(client, uri, 6, 5)
    assert tile is not None and "tx: Tile[f32, (128,)]" in tile
    assert await _hover(client, uri, 13, 6) is None  # the kernel name is neither


async def test_inlay_hints_follow_assignments(client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "inlay.py", TYPED)
    await client.wait_diagnostics(uri, 1)
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=9, character=0))))
    assert hints is not None
    # "𝔶" is two UTF-16 units, so its hint sits at character 4 + 2.
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [
        (6, 6, ": Tile[f32, (128,)]"), (7, 6, ": Tile[f32, (128,)]")]
    only_first = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=6, character=0),
                          end=types.Position(line=6, character=40))))
    assert only_first is not None and len(only_first) == 1


async def test_suppression_action_applies(client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "suppress.py", BAD_SIGNATURE)
    [diag] = await client.wait_diagnostics(uri, 1)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    assert actions is not None
    [action] = [a for a in actions if isinstance(a, types.CodeAction)]
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title.startswith("Suppress CT107")
    fixed = apply(BAD_SIGNATURE, _edits(action, uri))
    line = fixed.splitlines()[diag.range.start.line]
    assert line.endswith(") -> None:  # cutile: ignore[CT107]")


async def test_pyproject_changes_apply(client: RecordingClient, tmp_path: Path) -> None:
    await client.until(lambda: any(  # the server registers its watchers after initialized
        r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations))
    uri = client.open(tmp_path / "watched.py", BAD_SIGNATURE)
    assert [d.code for d in await client.wait_diagnostics(uri, 1)] == ["CT107"]
    pyproject = tmp_path / "pyproject.toml"

    async def change(text: str) -> list[types.Diagnostic]:
        count = len(client.published)
        pyproject.write_text(text)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]))
        await client.until(lambda: any(p.uri == uri for p in client.published[count:]))
        return list(client.last_for(uri).diagnostics)  # type: ignore[union-attr]

    assert await change('[tool.cutile-check]\nignore = ["CT107"]\n') == []
    assert [d.code for d in await change("[tool.cutile-check]\nselekt = []\n")] == ["CT107"]
    # The unknown key is reported on the pyproject.toml itself.
    config_uri = pyproject.resolve().as_uri()
    await client.until(lambda: client.last_for(config_uri) is not None)
    problems = client.last_for(config_uri)
    assert problems is not None and [d.code for d in problems.diagnostics] == ["CT901"]
    assert problems.diagnostics[0].range.start.line == 1


async def _quick_fixes(client: RecordingClient, uri: str,
                       diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    return [a for a in actions or [] if isinstance(a, types.CodeAction)]


async def test_quick_fixes_for_reported_findings_apply(
        client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "quickfix.py"
    uri = client.open(path, KNOWN_BAD)
    diags = await client.wait_diagnostics(uri, 1)
    fixable = [d for d in diags if d.code in ("CT202", "CT301")]
    assert fixable, "the analyzer reports at least the CT202 of this file"
    for diag in fixable:
        actions = await _quick_fixes(client, uri, diag)
        rewrites = [a for a in actions if not a.title.startswith("Suppress")]
        assert rewrites, f"no quick fix for {diag.code}"
        fixed = apply(KNOWN_BAD, _edits(rewrites[0], uri))
        remaining = analyze_source(fixed, str(path.resolve()))
        assert diag.code not in {d.code for d in remaining if d.span.line - 1 ==
                                 diag.range.start.line}, fixed


NAMED_LAUNCHES = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


def synced_before(x: object) -> None:
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    op.sync()
    print(z)


def synced_after(x: object) -> None:
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)
    op.sync()


def never_synced(x: object) -> None:
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x).start()
    print(z)


async def awaited_after(x: object) -> None:
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)
    await op
'''


async def test_use_after_move_fix_covers_named_launches(
        client: RecordingClient, tmp_path: Path) -> None:
    """Issue 29: the CT301 fix was offered for a bare `add(z, x)` statement only. A launch bound
    to a name gets it too: bind the results where `op` is synced or awaited, or wait for it
    before the use (moving a later sync up)."""
    path = tmp_path / "named.py"
    uri = client.open(path, NAMED_LAUNCHES)
    diags = [d for d in await client.wait_diagnostics(uri, 1) if d.code == "CT301"]
    assert len(diags) == 4
    for diag in diags:
        actions = await _quick_fixes(client, uri, diag)
        [rewrite] = [a for a in actions if not a.title.startswith("Suppress")]
        assert rewrite.is_preferred
        fixed = apply(NAMED_LAUNCHES, _edits(rewrite, uri))
        remaining = analyze_source(fixed, str(path.resolve()))
        assert sum(d.code == "CT301" for d in remaining) == len(diags) - 1, fixed


async def test_syntax_errors_cannot_be_suppressed_in_the_editor(
        client: RecordingClient, tmp_path: Path) -> None:
    # The registry says CT100 is not suppressible: the server reports it despite the comment
    # (as the command line does) and offers no action to add one.
    source = BAD_SIGNATURE.replace(") -> None:", ") -> None  # cutile: ignore")
    uri = client.open(tmp_path / "syntax_ignored.py", source)
    diags = await client.wait_diagnostics(uri, 1)
    assert [d.code for d in diags] == ["CT100", "CT902"]
    assert analyze_source(source, str((tmp_path / "syntax_ignored.py").resolve()))[0].code == \
        "CT100"
    actions = await _quick_fixes(client, uri, diags[0])
    assert not [a for a in actions if a.title.startswith("Suppress")]


def _big_document(kernels: int, depth: int) -> str:
    """Many kernels, each with one deeply nested call: what a fuzzer's mutant grew into."""
    deep = "ct.exp(" * depth + "tx" + ")" * depth
    body = "".join(f"\n\n@ct.kernel\ndef k{i}(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)])"
                   f" -> None:\n    tx = ct.load_tile_like(x, z)\n    y = {deep}\n"
                   f"    z.store(y + 1)\n" for i in range(kernels))
    return TYPED + body


async def test_requests_on_a_big_document_answer_in_seconds(client: RecordingClient,
                                                              tmp_path: Path) -> None:
    # Hovers and inlay hints used to parse the whole file with libcst: minutes and gigabytes on
    # deep calls (fuzz seed lead3, case 207). Now they read one kernel's statement.
    uri = client.open(tmp_path / "big.py", TYPED)
    await client.wait_diagnostics(uri, 1)
    client.replace(uri, _big_document(kernels=120, depth=120), version=2)
    last = TYPED.count("\n") + 120 * 7
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=last - 1, character=12))), 20)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Tile[f32, (128,)]" in hover.contents.value
    hints = await asyncio.wait_for(client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=last - 4, character=0),
                          end=types.Position(line=last, character=0)))), 20)
    assert hints
    actions = await asyncio.wait_for(client.text_document_code_action_async(
        types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri),
                               range=types.Range(start=types.Position(line=0, character=0),
                                                 end=types.Position(line=last, character=0)),
                               context=types.CodeActionContext(diagnostics=[]))), 20)
    assert actions is not None
