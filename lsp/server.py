"""The language server: protocol handlers over the pure modules of this package.

Each handler converts between LSP and cutile coordinates and delegates; the state it keeps is the
client options, the project-config cache, the last published analysis per document and the
scheduler that runs analyses off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from lsprotocol import types
from pygls import uris
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
)
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from cutile.checker.edits import Fix
from cutile.checker.fixes import quick_fixes
from cutile.diagnostics.diagnostic import Diagnostic

from . import SERVER_NAME, engine
from .convert import to_lsp
from .document import adopt, analysed_text, split_lines
from .engine import is_config_file
from .facts import DocumentFacts
from .hover import api_hover, hover_at, ownership_hover
from .inlay import inlay_hints
from .options import SECTION, ClientOptions, parse_options
from .positions import UTF16, from_position, to_position, to_range
from .protocol import UNDECODABLE, CutileProtocol, quiet_pygls_reader
from .scheduler import Scheduler, Snapshot
from .suppress import suppression_fix

log = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_S = 0.15
# Errors pygls answers for a malformed request or notification: the client's mistake.
CLIENT_ERRORS = (JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcMethodNotFound,
                 JsonRpcParseError, json.JSONDecodeError)
WATCHER_ID = "cutile-pyproject-watcher"
# Published per document: a client lists no more usefully, and thousands (a generated or
# broken file) make megabytes of JSON per keystroke. The first ones by position are kept.
MAX_PUBLISHED = 1000
# Diagnostics one code-action request considers (the client asks about the cursor or a
# selection; a whole-file selection of a broken file would otherwise take minutes).
MAX_ACTION_DIAGNOSTICS = 50


@dataclass(frozen=True)
class Analysis:
    """What was published for one document version, kept for code actions."""

    snapshot: Snapshot
    diagnostics: tuple[Diagnostic, ...]


def _version() -> str:
    try:
        return metadata.version("cutile")
    except metadata.PackageNotFoundError:
        return "0"


class CutileLanguageServer(LanguageServer):
    def __init__(self, debounce_s: float = DEFAULT_DEBOUNCE_S) -> None:
        super().__init__(SERVER_NAME, _version(), protocol_cls=CutileProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        quiet_pygls_reader()
        self.options = ClientOptions()
        self.analyzer = engine.Analyzer()
        self.published: dict[str, Analysis] = {}
        self._facts: dict[str, DocumentFacts] = {}
        self._config_uris: set[str] = set()
        self.scheduler: Scheduler[engine.FileResult] = Scheduler(
            debounce_s, self._snapshot, self._analyze, self._publish, self._analysis_failed)

    @property
    def shut_down(self) -> bool:
        protocol = self.protocol
        return isinstance(protocol, CutileProtocol) and protocol.shut_down

    # -- errors and logging: never a dialog, always the log ------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        # A body that is not JSON (pygls's reader reports those with the source
        # JsonRpcException): a parse error answer. Other malformed messages are answered
        # before they reach a handler (protocol.py); pygls reports unknown methods here.
        if source is JsonRpcException and isinstance(error, UNDECODABLE):
            protocol = self.protocol
            if isinstance(protocol, CutileProtocol):
                protocol.report_parse_error(error)
            return
        if isinstance(error, CLIENT_ERRORS):
            self.log(types.MessageType.Warning, f"ignored a malformed message: {error!r}")
            return
        self.log(types.MessageType.Error, f"internal error: {error!r}")

    def log(self, kind: types.MessageType, message: str) -> None:
        log.log(logging.ERROR if kind == types.MessageType.Error else logging.INFO, message)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # no client attached (unit tests) or the pipe is gone
            log.debug("could not forward a log message", exc_info=True)

    # -- documents --------------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding
        return str(getattr(enc, "value", enc) or UTF16)

    def document(self, uri: str) -> TextDocument:
        return self.workspace.get_text_document(uri)

    def open_document(self, uri: str) -> TextDocument | None:
        """The document if the client opened it and it is Python; requests about others get
        empty answers (pygls would read the file from disk, which may not exist or not be the
        editor's)."""
        if uri not in self.workspace.text_documents:
            return None
        doc = self.document(uri)
        return doc if is_python(uri, doc.language_id) else None

    def path_of(self, uri: str) -> str:
        return uris.to_fs_path(uri) or uri

    def set_options(self, raw: object) -> None:
        self.options, errors = parse_options(raw)
        for error in errors:
            self.log(types.MessageType.Warning, f"cutile settings: {error}")

    def reanalyze_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.scheduler.schedule(uri, immediate=True)

    def reanalyze_importers(self, saved: str) -> None:
        """Other files read a saved module from disk: re-check the open documents that may
        import it (those naming it; a superset is only slower)."""
        path = PurePosixPath(urlsplit(saved).path)
        stem = path.parent.name if path.stem == "__init__" else path.stem  # a package
        if not stem.isidentifier():
            return
        names = re.compile(rf"\b{stem}\b")
        for uri in list(self.workspace.text_documents):
            doc = self.open_document(uri) if uri != saved else None
            if doc is not None and names.search(doc.source):
                self.scheduler.schedule(uri, immediate=True)

    def _snapshot(self, uri: str, generation: int) -> Snapshot | None:
        doc = self.open_document(uri)
        if doc is None:
            return None
        return Snapshot(uri, self.path_of(uri), doc.version, doc.source, generation)

    def _analyze(self, snap: Snapshot) -> engine.FileResult:
        """Runs on the analysis thread."""
        if not self.options.enable:
            return engine.FileResult((), ())
        return self.analyzer.analyze(analysed_text(snap.source), snap.path)

    def _publish(self, snap: Snapshot, result: engine.FileResult) -> None:
        self.published[snap.uri] = Analysis(snap, result.diagnostics)
        self._send(snap.uri, snap.version, snap.source, result.diagnostics)
        by_file: dict[str, list[Diagnostic]] = {}
        for problem in result.config_problems:
            by_file.setdefault(problem.span.path, []).append(problem)
        for path, problems in by_file.items():
            # Configuration errors belong to the pyproject.toml, where the user can fix them.
            uri = Path(path).resolve().as_uri()
            self._config_uris.add(uri)
            self._send(uri, None, _read(path), problems)

    def _send(self, uri: str, version: int | None, source: str,
              diagnostics: Sequence[Diagnostic]) -> None:
        lines = split_lines(source)
        converted: list[types.Diagnostic] = []
        for diag in diagnostics:
            lsp_diag = to_lsp(diag, uri, lines, self.options, self.encoding)
            if lsp_diag is not None:
                converted.append(lsp_diag)
            if len(converted) == MAX_PUBLISHED:
                break
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=converted))

    def config_changed(self) -> None:
        self.analyzer.reset()
        for uri in self._config_uris:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self._config_uris.clear()
        self.reanalyze_all()

    def _analysis_failed(self, snap: Snapshot, error: BaseException) -> None:
        self.log(types.MessageType.Error,
                 f"cutile could not analyse {snap.path} (version {snap.version}): {error!r}")

    def close_document(self, uri: str) -> None:
        self.scheduler.forget(uri)
        self.published.pop(uri, None)
        self._facts.pop(uri, None)
        engine.forget(self.path_of(uri))
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- facts of one document version for hovers, inlay hints and code actions ------------

    def facts(self, uri: str, doc: TextDocument) -> DocumentFacts:
        """The facts of the document the request started with: a didClose handled meanwhile
        (requests run off the event loop) would make pygls read the file from disk."""
        source = analysed_text(doc.source)
        facts = self._facts.get(uri)
        if facts is None or not facts.matches(source, doc.version):
            facts = DocumentFacts(source, self.path_of(uri), doc.version)
            self._facts[uri] = facts  # the facts of older versions go with it
        return facts

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        """A kernel name's tile type, else a host name's ownership state, else the host API
        entry a call or property names."""
        uri = params.text_document.uri
        doc = self.open_document(uri)
        if doc is None:
            return None
        facts = self.facts(uri, doc)
        line, col = from_position(doc.lines, params.position, self.encoding)
        names = facts.typed_names((line, line))
        info = hover_at(names, facts.source, line, col, facts.names)
        if info is None:
            info = ownership_hover(facts.ownership(), line, col)
        if info is None:
            info = api_hover(facts.ownership(), line, col)
        if info is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=info.markdown),
                           range=to_range(doc.lines, info.span, self.encoding))

    def inlay_hints(self, params: types.InlayHintParams) -> list[types.InlayHint]:
        if not self.options.inlay_hints:
            return []
        uri = params.text_document.uri
        doc = self.open_document(uri)
        if doc is None:
            return []
        facts = self.facts(uri, doc)
        first, last = params.range.start.line + 1, params.range.end.line + 1
        hints = inlay_hints(facts.typed_names((first, last)), facts.source, first, last,
                            facts.names)
        return [types.InlayHint(position=to_position(doc.lines, h.line, h.col, self.encoding),
                                label=h.label, kind=types.InlayHintKind.Type, padding_left=False)
                for h in hints]

    # -- code actions ---------------------------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        analysis = self.published.get(uri)
        doc = self.open_document(uri)
        if doc is None or analysis is None or analysis.snapshot.version != doc.version:
            return []  # the client asks again once fresh diagnostics arrive
        lines = doc.lines
        facts = self.facts(uri, doc)
        actions: list[types.CodeAction] = []
        considered = 0
        for diag in analysis.diagnostics:
            lsp_diag = to_lsp(diag, uri, lines, self.options, self.encoding)
            if lsp_diag is None or not _overlaps(lsp_diag.range, params.range):
                continue
            considered += 1
            if considered > MAX_ACTION_DIAGNOSTICS:
                break
            fixes = quick_fixes(facts.source, diag, facts.outline(), facts.aliases())
            suppress = suppression_fix(facts.source, diag.span.line, diag.code, facts.lines(),
                                       facts.tokens_around(diag.span.line))
            fixes += [suppress] if suppress else []
            actions += [self._action(uri, lines, fix, lsp_diag) for fix in fixes]
        return actions

    def _action(self, uri: str, lines: Sequence[str], fix: Fix,
                diag: types.Diagnostic) -> types.CodeAction:
        edits = [types.TextEdit(range=types.Range(
            start=to_position(lines, e.line, e.col, self.encoding),
            end=to_position(lines, e.end_line, e.end_col, self.encoding)), new_text=e.text)
            for e in fix.edits]
        return types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix,
                                diagnostics=[diag], is_preferred=fix.preferred or None,
                                edit=types.WorkspaceEdit(changes={uri: edits}))


PYTHON_SUFFIXES = ("", ".py", ".pyi", ".pyw")


def is_python(uri: str, language_id: str | None) -> bool:
    """Whether to analyse a document: a client may attach the server to every file."""
    if language_id and language_id.lower() != "python":
        return False
    return PurePosixPath(urlsplit(uri).path).suffix.lower() in PYTHON_SUFFIXES


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def create_server(debounce_s: float = DEFAULT_DEBOUNCE_S) -> CutileLanguageServer:
    server = CutileLanguageServer(debounce_s)
    _register(server)
    return server


def _register(server: CutileLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: CutileLanguageServer, params: types.InitializeParams) -> None:
        adopt(ls.workspace)
        ls.set_options(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: CutileLanguageServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace
        dynamic = watched.did_change_watched_files if watched else None
        if dynamic is not None and dynamic.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")])
            registration = types.Registration(
                id=WATCHER_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options)
            try:
                await ls.client_register_capability_async(
                    types.RegistrationParams(registrations=[registration]))
            except Exception as error:  # pyproject edits outside the editor then go unnoticed
                ls.log(types.MessageType.Warning, f"cannot watch pyproject.toml: {error}")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CutileLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.scheduler.schedule(params.text_document.uri, immediate=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CutileLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.scheduler.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CutileLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        if is_config_file(ls.path_of(params.text_document.uri)):
            ls.config_changed()
        else:
            ls.scheduler.schedule(params.text_document.uri, immediate=True)
            ls.reanalyze_importers(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CutileLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close_document(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: CutileLanguageServer,
                                       params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if not (isinstance(settings, dict) and SECTION in settings):
            # Pull-model clients send no settings: ask for our section.
            got = await ls.workspace_configuration_async(types.ConfigurationParams(
                items=[types.ConfigurationItem(section=SECTION)]))
            settings = got[0] if got else None
        ls.set_options(settings)
        ls.reanalyze_all()
        inlay = ls.client_capabilities.workspace
        if inlay and inlay.inlay_hint and inlay.inlay_hint.refresh_support:
            ls.workspace_inlay_hint_refresh(None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: CutileLanguageServer,
                           params: types.DidChangeWatchedFilesParams) -> None:
        if any(is_config_file(ls.path_of(change.uri)) for change in params.changes):
            ls.config_changed()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: CutileLanguageServer, params: types.HoverParams) -> types.Hover | None:
        # Typing, parsing and the host analysis take a while on big files: off the event loop.
        return await asyncio.get_running_loop().run_in_executor(None, ls.hover, params)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions())
    async def inlay_hint(ls: CutileLanguageServer,
                         params: types.InlayHintParams) -> list[types.InlayHint]:
        return await asyncio.get_running_loop().run_in_executor(None, ls.inlay_hints, params)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def code_action(ls: CutileLanguageServer,
                          params: types.CodeActionParams) -> list[types.CodeAction]:
        return await asyncio.get_running_loop().run_in_executor(None, ls.code_actions, params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: CutileLanguageServer, params: None) -> None:
        ls.scheduler.close()

