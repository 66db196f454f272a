"""Messages the client got wrong: answered as JSON-RPC says, logged in one line, never a traceback.

pygls decodes a message body with `json.loads` and builds the message with cattrs inside the
decoder; for a body that is not JSON, not a JSON-RPC message, or whose params do not fit the
method, it logged a library traceback to stderr and left a request unanswered. Here the decoder
keeps plain JSON values and `handle_message` checks the envelope, then builds the message:

- a body that is not JSON: parse error (-32700), id null (`report_parse_error`, called by the
  server's error handler; pygls's own traceback record of it is dropped by `QuietClientErrors`);
- not a JSON-RPC 2.0 request, notification or response (`[]`, `1`, a bad `jsonrpc`, `id` or
  `method`): invalid request (-32600), with the id when it can be read, else null;
- a request whose params do not fit its method: invalid params (-32602) with its id;
- a notification or a response that does not fit: logged and ignored (neither gets an answer);
- a request after `shutdown`: invalid request (-32600), as LSP says (pygls leaves it unanswered);
- a `didChange` for a document that is not open: a warning in the log.

After `exit` nothing more is written: answers still being computed are dropped, not written to
the closed stream (pygls logged a traceback for each).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Generator
from typing import Any
from urllib.parse import unquote

from cattrs import transform_error  # cattrs comes with pygls (2.1 needs cattrs >= 23.1.2)
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)
JSONRPC = "2.0"
# What a body that is not JSON raises in pygls's reader (`json.loads` of the bytes).
UNDECODABLE = (json.JSONDecodeError, UnicodeDecodeError)
_MAX_SHOWN = 80  # characters of the client's values quoted in a log line


class CutileProtocol(LanguageServerProtocol):
    """pygls's protocol, with the client's malformed messages answered instead of logged."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        # pygls calls this for every JSON object of a body, innermost first: keep plain values
        # here and build the message once the whole body is known (handle_message).
        return data

    exiting = False

    @property
    def shut_down(self) -> bool:
        """Whether the client sent `shutdown` (the exit status is 0 only then)."""
        return bool(self._shutdown)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        self.exiting = True
        # handlers still awaiting are cancelled on the way out: nothing to report (no event
        # loop in pygls's synchronous mode)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().set_exception_handler(_quiet_on_exit)
        yield from super().lsp_exit(*args)

    def _send_data(self, data: Any) -> None:
        if not self.exiting:
            super()._send_data(data)

    def handle_message(self, message: Any) -> None:
        problem = envelope_problem(message)
        if problem is not None:
            self.reject(readable_id(message), JsonRpcInvalidRequest, problem)
            return
        if self._shutdown and "id" in message and message.get("method", types.EXIT) != types.EXIT:
            self.reject(message["id"], JsonRpcInvalidRequest,
                        f"{_shown(message['method'])} came after shutdown")
            return
        if message.get("method") == types.TEXT_DOCUMENT_DID_CHANGE and not self._is_open(message):
            self._warn(f"ignored a change to a document that is not open: {_uri(message)}")
            return
        try:
            structured = self._structure(message)
        except Exception as err:  # cattrs says why the params do not fit, in many ways
            self._misfit(message, err)
            return
        super().handle_message(structured)

    def _is_open(self, message: dict[str, Any]) -> bool:
        uri = _uri(message)
        return self._workspace is None or not isinstance(uri, str) or \
            unquote(uri) in self._workspace.text_documents

    def _warn(self, text: str) -> None:
        log.warning("%s", text)
        self.notify(types.WINDOW_LOG_MESSAGE,
                    types.LogMessageParams(type=types.MessageType.Warning, message=text))

    def _structure(self, data: dict[str, Any]) -> Any:
        """The message as pygls builds it (the same types for the same body)."""
        converter = self._converter
        if "method" in data:
            default = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
            return converter.structure(data, self.get_message_type(data["method"]) or default)
        if "error" in data:
            return converter.structure(data, ResponseErrorMessage)
        pending: dict[Any, Any] = getattr(self, "_result_types", {})
        return converter.structure(data, pending.pop(data["id"], None) or JsonRPCResponseMessage)

    def _misfit(self, data: dict[str, Any], err: Exception) -> None:
        method = data.get("method")
        if method is None:
            log.warning("ignored a malformed response to request %s: %s", _shown(data["id"]),
                        _reason(err))
        elif "id" in data:
            self.reject(data["id"], JsonRpcInvalidParams,
                        f"the params of {_shown(method)} do not fit it: {_reason(err)}")
        else:
            log.warning("ignored a %s notification whose params do not fit it: %s",
                        _shown(method), _reason(err))

    def reject(self, ident: int | str | None, error: type[JsonRpcException], why: str) -> None:
        """Answer a message with a JSON-RPC error, and log it in one line."""
        log.warning("answered a message with %s (%d): %s", error.MESSAGE, error.CODE, why)
        # a plain object: JSON-RPC wants `"id": null` written out when the id is unknown
        self._send_data({"jsonrpc": JSONRPC, "id": ident,
                         "error": {"code": error.CODE, "message": f"{error.MESSAGE}: {why}"}})

    def report_parse_error(self, err: Exception) -> None:
        """A body that is not JSON (pygls's reader failed on it): parse error, id null."""
        self.reject(None, JsonRpcParseError, f"the body is not JSON ({_reason(err)})")


def envelope_problem(message: Any) -> str | None:
    """Why a decoded body is not a JSON-RPC 2.0 request, notification or response, or None.
    (LSP has no batches: an array is a malformed message too.)"""
    if not isinstance(message, dict):
        return f"expected a JSON object, got {type(message).__name__} {_shown(message)}"
    if message.get("jsonrpc") != JSONRPC:
        return f'"jsonrpc" must be "2.0", not {_shown(message.get("jsonrpc"))}'
    if "id" in message and readable_id(message) is None:
        return f'"id" must be a number or a string, not {_shown(message["id"])}'
    if "method" in message:
        if not isinstance(message["method"], str):
            return f'"method" must be a string, not {_shown(message["method"])}'
        params = message.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            return f'"params" must be an object or an array, not {_shown(params)}'
        return None
    if "id" not in message:
        return 'a message needs a "method" (a request or a notification) or an "id" (a response)'
    if "result" not in message and "error" not in message:
        return 'a response needs a "result" or an "error"'
    return None


def _quiet_on_exit(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if not isinstance(context.get("exception"), (asyncio.CancelledError, SystemExit)):
        loop.default_exception_handler(context)


def _uri(message: dict[str, Any]) -> Any:
    params = message.get("params")
    document = params.get("textDocument") if isinstance(params, dict) else None
    return document.get("uri") if isinstance(document, dict) else None


def readable_id(message: Any) -> int | str | None:
    ident = message.get("id") if isinstance(message, dict) else None
    ok = isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))
    return ident if ok else None


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # not JSON (a value pygls's reader let through)
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def _reason(err: BaseException) -> str:
    """One line: what does not fit where (cattrs's words, e.g. `required field missing @
    $.params`), or the exception's own words."""
    # cattrs's validation errors are exception groups
    parts = transform_error(err) if isinstance(err, BaseExceptionGroup) else [str(err)]
    text = "; ".join(p.splitlines()[0] for p in parts if p.strip()) or type(err).__name__
    return text if len(text) <= 300 else text[:300] + "..."


class QuietClientErrors(logging.Filter):
    """Drops pygls's traceback record for a body that is not JSON: the server answers it with a
    parse error and logs it in one line instead (report_parse_error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        err = record.exc_info[1] if record.exc_info else None
        return not isinstance(err, UNDECODABLE)


def quiet_pygls_reader() -> None:
    """Install the filter on the logger pygls's message loop logs to (once)."""
    reader_log = logging.getLogger("pygls.server")
    if not any(isinstance(f, QuietClientErrors) for f in reader_log.filters):
        reader_log.addFilter(QuietClientErrors())
