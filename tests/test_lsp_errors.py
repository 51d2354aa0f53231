"""The language server answers what it cannot read with JSON-RPC errors, as the LSP specification
asks, over raw bytes on stdio (a client library would not send such messages)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HLSLLINT = str(Path(sys.executable).with_name("hlsllint"))
PATIENCE = 60.0
"""Seconds to wait for the answer that ends a test (a loaded machine starts a server slowly)."""


class RawClient:
    """Bytes in, JSON-RPC messages out."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [HLSLLINT, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.buffer = b""

    def send_bytes(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def _message(self) -> dict[str, Any] | None:
        head, sep, rest = self.buffer.partition(b"\r\n\r\n")
        if not sep:
            return None
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        if len(rest) < length:
            return None
        self.buffer = rest[length:]
        found: dict[str, Any] = json.loads(rest[:length])
        return found

    def until_answer(self, msg_id: int) -> list[dict[str, Any]]:
        """Every message the server sends up to and including its answer to request `msg_id`."""
        assert self.proc.stdout is not None
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            message = self._message()
            if message is not None:
                seen.append(message)
                if message.get("id") == msg_id and "method" not in message:
                    return seen
                continue
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                assert chunk, f"the server exited; it said: {seen}"
                self.buffer += chunk
        raise AssertionError(f"no answer to request {msg_id}; the server said: {seen}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def server() -> Iterator[RawClient]:
    client = RawClient()
    client.send({"id": 0, "method": "initialize", "params": {"capabilities": {}}})
    client.until_answer(0)
    client.send({"method": "initialized", "params": {}})
    yield client
    client.close()


def _answers(client: RawClient, msg_id: int) -> list[dict[str, Any]]:
    """What the server sent after the message under test, up to its answer to a probe (a hover
    on a document that is not open) sent next; the server reads messages in order."""
    probe = {"textDocument": {"uri": "file:///nowhere.hlsl"}, "position": {"line": 0, "character": 0}}
    client.send({"id": msg_id, "method": "textDocument/hover", "params": probe})
    seen = client.until_answer(msg_id)
    return seen[:-1]


def _errors(messages: list[dict[str, Any]]) -> list[tuple[Any, int]]:
    return [(m.get("id"), m["error"]["code"]) for m in messages if "error" in m and "method" not in m]


@pytest.mark.parametrize(
    "params",
    [
        {"textDocument": {"uri": "file:///x.hlsl"}},  # no position
        {"textDocument": {"uri": "file:///x.hlsl"}, "position": {"line": "one", "character": 0}},
        42,
        None,
    ],
)
def test_bad_params_of_a_known_request_get_invalid_params(server: RawClient, params: object) -> None:
    """A hover whose params do not fit gets InvalidParams (it used to get no answer at all, and
    the editor waited for ever)."""
    server.send({"id": 101, "method": "textDocument/hover", "params": params})
    said = _answers(server, 102)
    assert _errors(said) == [(101, -32602)]
    message = next(m for m in said if m.get("id") == 101)["error"]["message"]
    assert "textDocument/hover" in message


@pytest.mark.parametrize(
    "body",
    [b'{"jsonrpc":"2.0","id":201,"method":"textDocument/hover"', b"\xff\xfe", b"not json", b"[" * 100_000],
)
def test_a_body_that_is_not_json_gets_a_parse_error(server: RawClient, body: bytes) -> None:
    server.send_bytes(body)
    assert _errors(_answers(server, 202)) == [(None, -32700)]


@pytest.mark.parametrize(
    ("message", "answer"),
    [
        (b"[1, 2]", None),
        (b"42", None),
        (b'{"id": 301, "method": "textDocument/hover", "params": {}}', 301),  # no "jsonrpc"
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover", "params": {}}', None),
        (b'{"jsonrpc": "2.0", "id": 302, "method": 7}', 302),
    ],
)
def test_what_is_no_request_gets_invalid_request(
    server: RawClient, message: bytes, answer: int | None
) -> None:
    server.send_bytes(message)
    assert _errors(_answers(server, 303)) == [(answer, -32600)]


def test_an_unknown_request_gets_method_not_found(server: RawClient) -> None:
    server.send({"id": 401, "method": "hlsllint/noSuchThing", "params": {}})
    assert _errors(_answers(server, 402)) == [(401, -32601)]


def test_notifications_get_no_reply_whatever_is_wrong(server: RawClient) -> None:
    """Bad params, an unknown method: a notification is never answered; what was wrong goes to
    the log, not to a pop-up."""
    server.send({"method": "textDocument/didOpen", "params": {"bad": 1}})
    server.send({"method": "textDocument/didChange", "params": 3})
    server.send({"method": "hlsllint/noSuchNotification", "params": {}})
    said = _answers(server, 501)
    assert not _errors(said)
    assert not [m for m in said if m.get("method") == "window/showMessage"]
    logged = [m["params"]["message"] for m in said if m.get("method") == "window/logMessage"]
    assert any("textDocument/didOpen" in text and "text_document" in text for text in logged)


def test_the_server_goes_on_after_bad_messages(server: RawClient) -> None:
    """After all of the above, a document still gets its diagnostics."""
    uri = "file:///after.hlsl"
    text = "float f(float x)\n{\n    return sign(x) < 0 ? 1.0 : 2.0;\n}\n"
    server.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "hlsl", "version": 1, "text": text}},
        }
    )
    server.send({"id": 601, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": uri}}})
    said = server.until_answer(601)
    assert said[-1]["result"]["items"]
