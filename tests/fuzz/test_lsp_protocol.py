"""Malformed JSON-RPC from a client: the server answers as the protocol says (parse error, invalid
request, invalid params, method not found) and logs one line each, never a traceback."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from cutile.lsp.protocol import envelope_problem, readable_id

from . import lsp_target

# (body, the id of the error answer, its JSON-RPC code)
ANSWERS: list[tuple[str, int | str | None, int]] = [
    ("{", None, -32700),
    ("\x00", None, -32700),
    ("\ud800", None, -32700),
    ("[]", None, -32600),
    ("null", None, -32600),
    ('"x"', None, -32600),
    ('{"jsonrpc": "2.0"}', None, -32600),
    ('{"jsonrpc": "2.0", "id": 1}', 1, -32600),
    ('{"jsonrpc": "1.0", "id": "s", "method": "textDocument/hover"}', "s", -32600),
    ('{"jsonrpc": "1.0", "id": [], "method": {}}', None, -32600),
    ('{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": 3}', None, -32600),
    ('{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover"}', 7, -32602),
    ('{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"textDocument": '
     '{"uri": "file:///x.py"}, "position": {"line": "a", "character": -1}}}', 8, -32602),
    ('{"jsonrpc": "2.0", "id": 9, "method": "no/such/method", "params": {}}', 9, -32601),
]


def _session_answers(bodies: list[str]) -> tuple[list[dict[str, Any]], str]:
    s = lsp_target._Session()
    try:
        s.send(json.dumps(lsp_target._request(0, "initialize", lsp_target.INIT)))
        assert s.wait_for(0, 60) is not None
        s.send(json.dumps(lsp_target._note("initialized", {})))
        for body in bodies:
            s.send(body)
        s.send(json.dumps(lsp_target._request(99, "shutdown", None)))
        answers: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            msg = s.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            assert msg is not None, "the server exited"
            if msg.get("id") == 99 and "method" not in msg:
                break
            if "error" in msg:
                answers.append(msg)
        s.send(json.dumps(lsp_target._note("exit", None)))
        s.proc.wait(20)
        return answers, b"".join(s.stderr).decode(errors="replace")
    finally:
        s.close()


def test_malformed_messages_get_json_rpc_errors_and_one_line_logs() -> None:
    answers, stderr = _session_answers([body for body, _, _ in ANSWERS])
    got = [(a["id"], a["error"]["code"]) for a in answers]
    assert got == [(ident, code) for _, ident, code in ANSWERS], answers
    assert all("id" in a and a["jsonrpc"] == "2.0" for a in answers)  # `"id": null` written out
    assert "Traceback" not in stderr, stderr
    assert stderr.count("\n") <= len(ANSWERS) + 2, stderr  # one line each (and the shutdown's)
    # says which method's params do not fit (the rest is cattrs's wording, e.g. `required field
    # missing @ $.params`, which may change between its versions)
    assert 'the params of "textDocument/hover" do not fit it: ' in stderr


@pytest.mark.parametrize(("message", "problem"), [
    ([], "expected a JSON object"),
    ({"jsonrpc": "2.0", "id": True, "method": "x"}, '"id" must be a number or a string'),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, '"id" must be a number or a string'),
    ({"jsonrpc": "2.0", "method": "x", "params": "p"}, '"params" must be an object'),
    ({"jsonrpc": "2.0", "id": 3}, 'a response needs a "result" or an "error"'),
    ({"id": 3, "method": "x"}, '"jsonrpc" must be "2.0", not null'),
])
def test_envelope_problems(message: Any, problem: str) -> None:
    found = envelope_problem(message)
    assert found is not None and found.startswith(problem)


@pytest.mark.parametrize("message", [
    {"jsonrpc": "2.0", "id": 1, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit", "params": None},
    {"jsonrpc": "2.0", "id": "a", "result": None},
    {"jsonrpc": "2.0", "id": 4, "error": {"code": 1, "message": "m"}},
    {"jsonrpc": "2.0", "method": "$/x", "params": [1, 2]},
])
def test_well_formed_envelopes(message: dict[str, Any]) -> None:
    assert envelope_problem(message) is None


def test_readable_ids() -> None:
    assert [readable_id(m) for m in ({"id": 1}, {"id": "x"}, {"id": True}, {"id": None}, [],
                                     {"id": 2.0})] == [1, "x", None, None, None, None]
