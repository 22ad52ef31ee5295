"""The agent gateway's wire: one JSON-RPC 2.0 message per line over the Unix socket, each line bounded.

Used by both ends: the host's listener and `tabgate-host mcp`. A line is read into the host's one typed
envelope (`Request`, `Notification` or `Response`, native_host/process/jsonrpc.py) and written with its
builders, so both wires of the host speak the same messages. A line over the bound, or one that is not a
JSON-RPC message, ends that connection with a clear error rather than growing a buffer without limit.
"""

from __future__ import annotations

import json
from typing import Final

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from ..process.jsonrpc import JsonObject, McpRequestError, Notification, Request, Response, parse_message

MAX_LINE: Final = 64 * 1024 * 1024  # a screenshot answer is ~2 MiB; nothing legitimate comes near this
# The handshake `tabgate-host mcp` opens every connection with (request, params {client: {name, version}}).
HELLO_METHOD: Final = "gateway/hello"

type Line = Request | Notification | Response


class WireError(Exception):
    """The peer sent something that is not a bounded line of JSON; the connection cannot continue."""


def encode(message: JsonObject) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class LineChannel:
    def __init__(self, stream: anyio.abc.ByteStream, *, max_line: int = MAX_LINE) -> None:
        self._stream = stream
        self._reader = BufferedByteReceiveStream(stream)
        self._max_line = max_line
        self._send_lock = anyio.Lock()

    async def receive(self, *, max_line: int | None = None) -> Line | None:
        """The next message, or None when the peer closed the connection between messages. An answer to no
        request that could be ours (no usable id) is passed over."""
        limit = self._max_line if max_line is None else max_line
        while True:
            try:
                line = await self._reader.receive_until(b"\n", limit)
            except (
                anyio.EndOfStream,
                anyio.IncompleteRead,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
            ):
                return None
            except anyio.DelimiterNotFound:
                raise WireError(f"a message is longer than {limit} bytes") from None
            try:
                message = parse_message(line)
            except McpRequestError as exc:
                raise WireError(exc.message) from None
            if message is not None:
                return message

    async def send(self, message: JsonObject) -> None:
        async with self._send_lock:
            await self._stream.send(encode(message))

    async def aclose(self) -> None:
        await self._stream.aclose()
