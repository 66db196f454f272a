"""A pytest-lsp client that records every publishDiagnostics with its version, plus helpers."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

TIMEOUT_S = 20.0


class RecordingClient(LanguageClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.published_at: list[float] = []
        self.registrations: list[types.Registration] = []

    def last_for(self, uri: str) -> types.PublishDiagnosticsParams | None:
        return next((p for p in reversed(self.published) if p.uri == uri), None)

    async def until(self, predicate: Callable[[], bool], timeout: float = TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the server did not answer in time")
            await asyncio.sleep(0.005)

    async def wait_diagnostics(self, uri: str, version: int | None,
                          timeout: float = TIMEOUT_S) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` at `version` (waits for them)."""
        def arrived() -> bool:
            last = self.last_for(uri)
            return last is not None and last.version == version

        await self.until(arrived, timeout)
        last = self.last_for(uri)
        assert last is not None
        return list(last.diagnostics)

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.resolve().as_uri()
        self.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version,
                                                 text=text)))
        return uri

    def replace(self, uri: str, text: str, version: int) -> None:
        self.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)
    client.published_at.append(time.monotonic())


def _register(client: RecordingClient, params: types.RegistrationParams) -> None:
    client.registrations += params.registrations


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES,
                                   types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record,
                                   types.CLIENT_REGISTER_CAPABILITY: _register})
    return client


def server_config(*extra: str, script: str | None = None) -> ClientServerConfig:
    command = [sys.executable, script] if script else [sys.executable, "-m", "cutile.lsp"]
    return ClientServerConfig(server_command=[*command, "--debounce-ms", "30", *extra],
                              client_factory=make_client)


def initialize_params(options: object = None, *, utf8: bool = False) -> types.InitializeParams:
    general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf8] if utf8 else None)
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(
            general=general,
            workspace=types.WorkspaceClientCapabilities(
                configuration=True,
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=True)),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                    related_information=True, version_support=True,
                    code_description_support=True),
                hover=types.HoverClientCapabilities(
                    content_format=[types.MarkupKind.Markdown]),
                inlay_hint=types.InlayHintClientCapabilities(),
                code_action=types.CodeActionClientCapabilities(
                    code_action_literal_support=types.ClientCodeActionLiteralOptions(
                        code_action_kind=types.ClientCodeActionKindOptions(
                            value_set=[types.CodeActionKind.QuickFix]))))),
        initialization_options=options)
