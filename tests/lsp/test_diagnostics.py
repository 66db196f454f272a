"""Diagnostics through the real server over stdio: codes, ranges, links, versions, clearing."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from cutile.checker.analyze import analyze_paths, analyze_source
from cutile.compiler.api import check_source

from .client import RecordingClient, initialize_params, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

DOCS = "https://docs.example.invalid/codes.md"

GOOD = '''\
import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def copy(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))
'''
# CT107: parameter `x` has no annotation.
BAD_SIGNATURE = GOOD.replace("x: Tensor[f32, (-1,)]", "x")
# CT100: the file does not parse.
BAD_SYNTAX = GOOD.replace("def copy(", "def copy((")


@pytest_lsp.fixture(config=server_config(), scope="module")
async def client(lsp_client: RecordingClient) -> None:
    await lsp_client.initialize_session(initialize_params({"docsUrl": DOCS}))
    yield
    await lsp_client.shutdown_session()


async def test_signature_error_published_with_range_code_and_link(
        client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "sig.py", BAD_SIGNATURE)
    [diag] = await client.wait_diagnostics(uri, 1)
    assert diag.code == "CT107"
    assert diag.source == "cutile"
    assert diag.severity == types.DiagnosticSeverity.Error
    line = BAD_SIGNATURE.splitlines().index(
        "def copy(z: Mut[Tensor[f32, (128,)]], x) -> None:")
    col = BAD_SIGNATURE.splitlines()[line].index(", x)") + 2
    assert diag.range == types.Range(start=types.Position(line=line, character=col),
                                     end=types.Position(line=line, character=col + 1))
    assert diag.code_description is not None
    assert diag.code_description.href == f"{DOCS}#ct107"
    assert "'x'" in diag.message


async def test_diagnostics_clear_when_the_file_is_fixed(
        client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "fix.py", BAD_SIGNATURE)
    assert [d.code for d in await client.wait_diagnostics(uri, 1)] == ["CT107"]
    client.replace(uri, GOOD, 2)
    assert await client.wait_diagnostics(uri, 2) == []


async def test_syntax_error_matches_the_frontend(client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "syntax.py", BAD_SYNTAX)
    [diag] = await client.wait_diagnostics(uri, 1)
    [want] = check_source(BAD_SYNTAX, str(tmp_path / "syntax.py"))
    assert diag.code == "CT100" == want.code
    assert diag.message == want.message
    assert (diag.range.start.line, diag.range.start.character) == (want.span.line - 1,
                                                                   want.span.col)


async def test_columns_are_utf16(client: RecordingClient, tmp_path: Path) -> None:
    # "𝔵" is one code point but two UTF-16 units: the column after it shifts by one.
    text = BAD_SIGNATURE.replace("def copy(z", "def copy(s: f32 = \"𝔵\", *, z")
    uri = client.open(tmp_path / "utf16.py", text)
    diags = await client.wait_diagnostics(uri, 1)
    [want] = [d for d in check_source(text, "utf16.py") if "'x'" in d.message]
    [got] = [d for d in diags if "'x'" in d.message]
    assert got.range.start.character == want.span.col + 1


async def test_only_the_latest_version_is_published(
        client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "burst.py", GOOD)
    await client.wait_diagnostics(uri, 1)
    before = len(client.published)
    for version in range(2, 12):
        client.replace(uri, BAD_SIGNATURE if version % 2 else GOOD, version)
    assert [d.code for d in await client.wait_diagnostics(uri, 11)] == ["CT107"]
    versions = [p.version for p in client.published[before:] if p.uri == uri]
    # Debounced: the burst of ten edits yields far fewer analyses, newest last, never out of order.
    assert versions == sorted(versions) and versions[-1] == 11 and len(versions) <= 3


async def test_closing_clears_diagnostics(client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "close.py", BAD_SIGNATURE)
    assert await client.wait_diagnostics(uri, 1)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.wait_diagnostics(uri, None)
    assert list(client.diagnostics[uri]) == []


async def test_severity_overrides_from_client_configuration(
        client: RecordingClient, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "severity.py", BAD_SIGNATURE)
    [diag] = await client.wait_diagnostics(uri, 1)
    count = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cutile": {"docsUrl": DOCS, "severityOverrides": {"CT1": "warning"}}}))
    await client.until(lambda: any(p.uri == uri for p in client.published[count:]))
    [diag] = client.last_for(uri).diagnostics  # type: ignore[union-attr]
    assert diag.severity == types.DiagnosticSeverity.Warning
    count = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cutile": {"docsUrl": DOCS, "severityOverrides": {"CT107": "off"}}}))
    await client.until(lambda: any(p.uri == uri for p in client.published[count:]))
    assert list(client.last_for(uri).diagnostics) == []  # type: ignore[union-attr]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cutile": {"docsUrl": DOCS}}))


async def test_bad_settings_are_logged_not_shown(client: RecordingClient) -> None:
    count = len(client.log_messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cutile": {"docsUrl": DOCS, "enable": "yes"}}))
    await client.until(lambda: len(client.log_messages) > count)
    assert "enable must be true or false" in client.log_messages[-1].message
    assert client.messages == []  # window/showMessage: no dialogs


# A dtype mix (CT202) in the kernel and a use after a move into a launch (CT301) on the host.
KNOWN_BAD = '''\
import cutile as ct
from cutile import Const, Mut, Tensor, f16, f32


@ct.kernel
def add(z: Mut[Tensor[f32, ("B",)]], x: Tensor[f32, (-1,)], B: Const[int]) -> None:
    tx = ct.load_tile_like(x, z)
    th = tx.astype(f16)
    z.store(tx + th)


x = ct.ones((1024,), f32)
z = ct.zeros((1024,), f32).partition((128,))
add(z, x).sync()
print(z)
'''


async def test_analyzer_findings_are_published_exactly(
        client: RecordingClient, tmp_path: Path) -> None:
    path = tmp_path / "known_bad.py"
    uri = client.open(path, KNOWN_BAD)
    got = await client.wait_diagnostics(uri, 1)
    want = analyze_source(KNOWN_BAD, str(path.resolve()))
    assert "CT202" in {d.code for d in want}  # the frontend reports dtype mixes today
    assert [(d.code, d.message) for d in got] == [(d.code, d.message) for d in want]
    for lsp_diag, diag in zip(got, want, strict=True):
        assert (lsp_diag.range.start.line, lsp_diag.range.start.character,
                lsp_diag.range.end.line, lsp_diag.range.end.character) == (
            diag.span.line - 1, diag.span.col, diag.span.end_line - 1, diag.span.end_col)
        related = lsp_diag.related_information or []
        assert [(r.message, r.location.range.start.line) for r in related] == [
            (n.message, n.span.line - 1) for n in diag.notes if n.span is not None]


async def test_absolute_import_of_a_package_kernel_is_found(
        client: RecordingClient, tmp_path: Path) -> None:
    # the server has no workspace folder and runs elsewhere: `pkg` is found from the file
    kern = GOOD.replace("(128,)", '("B",)').replace("x: Tensor[f32, (-1,)]",
                                                     "x: Tensor[f32, (-1,)], B: Const[int]")
    host = ("import cutile as ct\nfrom cutile import f32\nfrom pkg.kern import copy\n\n"
            "def main() -> None:\n    z = ct.zeros((1000,), f32).partition((128,))\n"
            "    copy(z, ct.ones((1000,), f32)).sync()\n    print(z)\n")
    pkg = tmp_path / "app" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(kern.replace("Mut, Tensor", "Const, Mut, Tensor"))
    (pkg / "host.py").write_text(host)
    uri = client.open(pkg / "host.py", host)
    got = [(d.code, d.range.start.line + 1, d.range.start.character)
           for d in await client.wait_diagnostics(uri, 1)]
    cli = [(d.code, d.span.line, d.span.col) for d in analyze_paths([str(pkg)]).diagnostics]
    assert got == cli == [("CT301", 8, 10)]
