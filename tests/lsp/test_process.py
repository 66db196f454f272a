"""The server as a process: exit statuses, a quiet exit while requests run, requests after
shutdown and command-line mistakes (raw JSON-RPC over pipes: pytest-lsp always shuts down)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SERVER = [sys.executable, "-m", "cutile.lsp", "--debounce-ms", "0"]
# A long document: its hover takes a while, so the exit arrives while requests still run.
BIG = "import cutile as ct\n" + "".join(
    f"def f{i}() -> None:\n    x{i} = ct.ones((8,), ct.f32)\n    print(x{i})\n"
    for i in range(3000))


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _session(tmp_path: Path, *, shutdown: bool, hovers: int = 20, late: bool = False) -> bytes:
    uri = (tmp_path / "big.py").as_uri()
    messages: list[dict[str, Any]] = [
        {"id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": BIG}}}]
    messages += [{"id": 10 + i, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 3 * i + 2, "character": 4}}}
        for i in range(hovers)]
    if shutdown:
        messages.append({"id": 2, "method": "shutdown"})
    if late:
        messages += [{"id": 3, "method": "textDocument/hover", "params": {
                         "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}},
                     {"id": 4, "method": "shutdown"}]
    messages.append({"method": "exit"})
    return b"".join(_frame(m) for m in messages)


def _answers(stdout: bytes) -> dict[Any, dict[str, Any]]:
    found: dict[Any, dict[str, Any]] = {}
    for chunk in stdout.split(b"Content-Length: ")[1:]:
        body = json.loads(chunk.split(b"\r\n\r\n", 1)[1])
        if "id" in body and "method" not in body:
            found[body["id"]] = body
    return found


@pytest.mark.parametrize("shutdown", [False, True])
def test_exit_is_quiet_with_the_spec_status(tmp_path: Path, shutdown: bool) -> None:
    done = subprocess.run(SERVER, input=_session(tmp_path, shutdown=shutdown),
                          capture_output=True, timeout=120, check=False)
    assert done.stderr.decode() == ""
    assert done.returncode == (0 if shutdown else 1)


def test_requests_after_shutdown_are_invalid(tmp_path: Path) -> None:
    done = subprocess.run(SERVER, input=_session(tmp_path, shutdown=True, hovers=0, late=True),
                          capture_output=True, timeout=120, check=False)
    answers = _answers(done.stdout)
    assert answers[2].get("result", "missing") is None
    for late in (3, 4):
        assert answers[late]["error"]["code"] == -32600
        assert "after shutdown" in answers[late]["error"]["message"]


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--log-level", "bogus", "expected one of DEBUG"),
    ("--debounce-ms", "inf", "expected 0 to 10000 milliseconds"),
    ("--debounce-ms", "1e12", "expected 0 to 10000 milliseconds"),
    ("--debounce-ms", "-5", "expected 0 to 10000 milliseconds"),
    ("--debounce-ms", "soon", "expected a number of milliseconds")])
def test_bad_options_are_usage_errors(option: str, value: str, words: str) -> None:
    done = subprocess.run([sys.executable, "-m", "cutile.lsp", option, value], input=b"",
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert words in done.stderr.decode() and "Traceback" not in done.stderr.decode()
