"""The language-server target: `cutile-lsp` over stdio, fed random sessions (documents from the
checker's mutants, incremental edits with ranges inside and outside the text, hovers, inlay hints
and code actions anywhere, malformed JSON-RPC, configuration garbage). The server must keep
answering: a final hover and `shutdown` get responses, it logs no internal error and prints no
traceback.

A case is a list of messages (a dict, or {"raw": body} for a body that is not valid JSON-RPC),
so a failure shrinks over messages."""

from __future__ import annotations

import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from typing import Any

from . import corpus, frames, mutate

URIS = ("file:///tmp/cutile-fuzz/a.py", "file:///tmp/cutile-fuzz/b.py",
        "file:///tmp/cutile-fuzz/pyproject.toml", "untitled:Untitled-1", "not a uri")
PROBE_ID = 10**9
ANSWER_S = 120.0
BAD_BODIES = ("{", "[]", "null", "1", '"x"', '{"jsonrpc": "2.0"}', '{"jsonrpc": "2.0", "id": 1}',
              '{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover"}',
              '{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": '
              '{"textDocument": {"uri": 5}, "position": {"line": "a", "character": -1}}}',
              '{"jsonrpc": "2.0", "id": 9, "method": "no/such/method", "params": {}}',
              '{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": 3}',
              '{"jsonrpc": "1.0", "id": [], "method": {}}', "\ud800", "\x00")


def _text(rng: random.Random) -> str:
    m = mutate.mutant(rng, corpus.seeds())
    return m.decode("utf-8", errors="surrogateescape") if isinstance(m, bytes) else m


def _pos(rng: random.Random) -> dict[str, int]:
    line = rng.choice((0, 1, 3, 10, 40, 200, 10**6, 2**31 - 1))
    return {"line": rng.randrange(line + 1) if line < 1000 else line,
            "character": rng.choice((0, 1, 4, 17, 80, 1000, 2**31 - 1))}


def _range(rng: random.Random) -> dict[str, Any]:
    a, b = _pos(rng), _pos(rng)
    if rng.random() < 0.7 and (b["line"], b["character"]) < (a["line"], a["character"]):
        a, b = b, a
    return {"start": a, "end": b}


def _message(rng: random.Random, ident: int, versions: dict[str, int]) -> dict[str, Any]:
    uri = rng.choice(URIS[:2]) if rng.random() < 0.85 else rng.choice(URIS)
    doc = {"uri": uri}
    kind = rng.randrange(14)
    if kind <= 1 or uri not in versions:
        versions[uri] = versions.get(uri, 0) + 1
        return _note("textDocument/didOpen", {"textDocument": {
            **doc, "languageId": "python", "version": versions[uri], "text": _text(rng)}})
    if kind <= 5:
        versions[uri] += 1
        changes = [{"range": _range(rng), "text": rng.choice(mutate.TOKENS + mutate.SNIPPETS)}
                   for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.2:
            changes.append({"text": _text(rng)})
        return _note("textDocument/didChange", {
            "textDocument": {**doc, "version": versions[uri]}, "contentChanges": changes})
    if kind == 6:
        return _request(ident, "textDocument/hover", {"textDocument": doc, "position": _pos(rng)})
    if kind == 7:
        return _request(ident, "textDocument/inlayHint", {"textDocument": doc,
                                                          "range": _range(rng)})
    if kind == 8:
        return _request(ident, "textDocument/codeAction", {
            "textDocument": doc, "range": _range(rng), "context": {"diagnostics": []}})
    if kind == 9:
        return {"raw": rng.choice(BAD_BODIES)}
    if kind == 10:
        versions.pop(uri, None)
        return _note("textDocument/didClose", {"textDocument": doc})
    if kind == 11:
        settings = rng.choice(({"cutile": 5}, {"cutile": {"enable": "yes"}},
                               {"cutile": {"inlayHints": False, "severity": {"CT201": "x"}}},
                               {"cutile": {"enable": True}}, None))
        return _note("workspace/didChangeConfiguration", {"settings": settings})
    if kind == 12:
        return _note("textDocument/didSave", {"textDocument": {"uri": rng.choice(URIS)}})
    versions[uri] += 1
    big = mutate.huge(rng, _text(rng), rng.choice((2000, 10000)))
    return _note("textDocument/didChange", {"textDocument": {**doc, "version": versions[uri]},
                                            "contentChanges": [{"text": big}]})


def _note(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _request(ident: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def case(rng: random.Random, huge_lines: int = 0) -> list[dict[str, Any]]:
    versions: dict[str, int] = {}
    return [_message(rng, i + 1, versions) for i in range(rng.randint(2, 12))]


def _frame(body: str) -> bytes:
    data = body.encode("utf-8", errors="surrogatepass")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


class _Session:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cutile.lsp", "--debounce-ms", "20"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.errors: list[str] = []
        # every write goes through one writer thread: the reader must never wait on a write
        # (a big didChange filling the server's stdin while the server, blocked writing its own
        # full stdout, waits for the reader was a deadlock of this harness, not of the server)
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._write, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def send(self, body: str) -> None:
        self.outbox.put(_frame(body))

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        while (frame := self.outbox.get()) is not None:
            try:
                stdin.write(frame)
                stdin.flush()
            except (BrokenPipeError, ValueError):  # the server exited or was killed
                return

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length or 0))
            if "method" in msg and "id" in msg:  # a request to the client: answer it
                self.send(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": None}))
            if msg.get("method") == "window/logMessage" and msg["params"].get("type") == 1:
                self.errors.append(msg["params"].get("message", ""))
            self.inbox.put(msg)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def wait_for(self, ident: int, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if msg is None:
                return None
            if msg.get("id") == ident and "method" not in msg:
                return msg
        return None

    def close(self) -> None:
        self.outbox.put(None)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


INIT = {"processId": None, "rootUri": None, "capabilities": {
    "workspace": {"configuration": True, "didChangeWatchedFiles": {"dynamicRegistration": True},
                  "inlayHint": {"refreshSupport": True}},
    "textDocument": {"hover": {}, "inlayHint": {}, "codeAction": {}}}}


def check(messages: list[dict[str, Any]]) -> str | None:
    s = _Session()
    try:
        s.send(json.dumps(_request(0, "initialize", INIT)))
        if s.wait_for(0, ANSWER_S) is None:
            return "no answer to initialize"
        s.send(json.dumps(_note("initialized", {})))
        for m in messages:
            s.send(m["raw"] if "raw" in m else json.dumps(m))
        s.send(json.dumps(_request(PROBE_ID, "textDocument/hover", {
            "textDocument": {"uri": URIS[0]}, "position": {"line": 0, "character": 0}})))
        if s.wait_for(PROBE_ID, ANSWER_S) is None:
            return "no answer to a hover after the session" + _tail(s)
        time.sleep(0.3)  # let the last debounced analysis run
        s.send(json.dumps(_request(PROBE_ID + 1, "shutdown", None)))
        if s.wait_for(PROBE_ID + 1, ANSWER_S) is None:
            return "no answer to shutdown" + _tail(s)
        s.send(json.dumps(_note("exit", None)))
        s.proc.wait(20)
        if s.errors:
            return "server logged an error: " + _signature(s.errors[0]) + "\n" + s.errors[0]
        return _traceback(b"".join(s.stderr).decode(errors="replace"))
    finally:
        s.close()


def _traceback(stderr: str) -> str | None:
    """A traceback on the server's stderr: the client's mistakes are answered and logged in
    one line, so any traceback is a failure, grouped by the innermost frame in cutile (judged
    by the package's real location, frames.py) or else by the exception line."""
    if "Traceback (most recent call last)" not in stderr:
        return None
    ours = [f for f in frames.traceback_files(stderr) if frames.is_ours(f)]
    last = stderr.strip().splitlines()[-1][:160]
    where = f"in {os.path.basename(ours[-1])}" if ours else "in a library"
    return f"traceback on stderr {where}: {last}\n{stderr}"


def _signature(message: str) -> str:
    """The error without the file and version, so one cause groups as one failure."""
    head = message.split(":", 1)[-1] if "could not analyse" in message else message
    return head.strip()[:160]


def _tail(s: _Session) -> str:
    text = b"".join(s.stderr).decode(errors="replace").strip().splitlines()
    return "" if not text else "\n" + "\n".join(text[-20:])
