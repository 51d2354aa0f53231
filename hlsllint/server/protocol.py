"""JSON-RPC errors for messages the server cannot read, as the LSP specification asks.

pygls reads a message in two steps: `json.loads` with `structure_message` as its object hook
(which turns the message into its `lsprotocol` type), then `handle_message`. A message whose
params do not fit its method fails in the first step and pygls only logs it (and shows "Error in
server"), so a request with bad params never gets a reply and the editor waits for ever; a body
that is not JSON goes to the server's error handler, again with no reply. Here:

- a request of a known method with params that do not fit: InvalidParams (-32602);
- a message that is not a JSON-RPC request, notification or response (no `jsonrpc: "2.0"`, a
  bad id, no method, an array, a number): InvalidRequest (-32600), with its id when it has one
  (else null);
- a body that is not JSON: ParseError (-32700) with id null (`parse_error`, called from the
  server's error handler, which receives what `json.loads` raised);
- an unknown request: MethodNotFound (-32601), as pygls already answers;
- a notification gets no reply whatever is wrong with it: what was wrong goes to the log
  (`window/logMessage`), and a response from the client that cannot be read fails the request
  that waits for it.
"""

from __future__ import annotations

import logging
from typing import Any

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

PARSE_ERRORS = (ValueError, RecursionError)
"""What `json.loads` raises on a body it cannot read (JSONDecodeError and UnicodeDecodeError are
ValueErrors; a deeply nested array exhausts the recursion limit)."""


class Unreadable:
    """A JSON-RPC message whose fields do not fit its type: what `structure_message` gives in
    place of the typed message, for `handle_message` to answer."""

    def __init__(self, data: dict[str, Any], problem: str) -> None:
        self.data = data
        self.problem = problem


def _msg_id(message: object) -> int | str | None:
    """A message's id when it is a valid JSON-RPC id (a number or a string), else None."""
    msg_id = message.get("id") if isinstance(message, dict) else getattr(message, "id", None)
    return msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None


def _problem(error: BaseException) -> str:
    """What does not fit, in a line: cattrs's paths (`invalid value for type, expected int @
    $.params.position.line`) when it was cattrs that refused the message."""
    if isinstance(error, ClassValidationError):
        return "; ".join(transform_error(error, path="$"))
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _is_notification(message: object) -> bool:
    """Whether a message is shaped as a notification: a method and no id."""
    if isinstance(message, dict):
        return "id" not in message and isinstance(message.get("method"), str)
    return isinstance(getattr(message, "method", None), str) and not hasattr(message, "id")


class HlslLintProtocol(LanguageServerProtocol):
    """pygls's language server protocol, answering what it cannot read (module docstring)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            return Unreadable(data, _problem(exc.__cause__ or exc))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Unreadable):
            self._unreadable(message)
        elif getattr(message, "jsonrpc", None) != self.VERSION:
            self._invalid(message, "not a JSON-RPC 2.0 message")
        else:
            super().handle_message(message)

    def _unreadable(self, message: Unreadable) -> None:
        data = message.data
        msg_id = _msg_id(data)
        method = data.get("method")
        if "id" in data and msg_id is None:
            self._invalid(data, f"the id must be a number or a string: {message.problem}")
        elif not isinstance(method, str):
            if msg_id is not None and "method" not in data and ("result" in data or "error" in data):
                self._bad_response(msg_id, message.problem)
            else:
                self._invalid(data, f"no method: {message.problem}")
        elif msg_id is None:  # a notification: never answered
            self._log(
                f"hlsllint: ignored the {method} notification, whose params are invalid: {message.problem}"
            )
        else:
            error = JsonRpcInvalidParams(f"Invalid params for {method}: {message.problem}")
            self._send_response(msg_id, error=error.to_response_error())

    def _invalid(self, message: object, why: str) -> None:
        """Answer a message that is no JSON-RPC request with InvalidRequest (its id, or null);
        a notification-shaped one is only logged."""
        if _is_notification(message):
            self._log(f"hlsllint: ignored an invalid notification: {why}")
        else:
            self._error(_msg_id(message), JsonRpcInvalidRequest(f"Invalid Request: {why}"))

    def _bad_response(self, msg_id: int | str, problem: str) -> None:
        """The client's response to one of our requests cannot be read: that request fails."""
        future = self._request_futures.pop(msg_id, None)
        self._result_types.pop(msg_id, None)
        if future is not None and not future.done():
            future.set_exception(JsonRpcInvalidParams(f"unreadable response: {problem}"))
        self._log(f"hlsllint: could not read the client's response to request {msg_id}: {problem}")

    def parse_error(self, error: BaseException) -> None:
        """A body that is not JSON: ParseError, with id null (its id cannot be known)."""
        self._error(None, JsonRpcParseError(f"Parse error: {error}"))

    def _error(self, msg_id: int | str | None, error: JsonRpcException) -> None:
        # A plain dict: lsprotocol's converter leaves out a None id, and JSON-RPC wants `null`.
        body = error.to_response_error()
        self._send_data(
            {"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": body.code, "message": body.message}}
        )

    def _log(self, text: str) -> None:
        logger.warning("%s", text)
        self.notify(
            types.WINDOW_LOG_MESSAGE, types.LogMessageParams(type=types.MessageType.Error, message=text)
        )
