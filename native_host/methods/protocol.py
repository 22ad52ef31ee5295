"""The methods the reader thread answers itself (see process/method_table.py).

`initialize`, `ping` and `servers/list` need nothing but the status board, so they are answered at once, even
while the event loop is still importing mcp; the event loop's methods go to it (dispatch.py)."""

from __future__ import annotations

from core.calls.capabilities import ServerStatus

from ..config.identity import HOST_NAME, HOST_VERSION, PROTOCOL_VERSION
from ..process.jsonrpc import ErrorCode, McpRequestError, Request
from ..process.method_table import LOOP_METHODS
from ..process.outbox import Outbox
from ..servers.status import StatusBoard


def _check_initialize(request: Request) -> None:
    client = request.params.get("client")
    if client is not None and not isinstance(client, dict):
        raise McpRequestError(
            ErrorCode.INVALID_PARAMS,
            "initialize: params.client must be an object {name, version}",
            request_id=request.id,
        )
    version = request.params.get("protocolVersion")
    if version is not None and not isinstance(version, str):
        raise McpRequestError(
            ErrorCode.INVALID_PARAMS,
            "initialize: params.protocolVersion must be a string",
            request_id=request.id,
        )


def answer_early(request: Request, board: StatusBoard, outbox: Outbox) -> bool:
    """Answer `request` here if it needs no MCP connection; False means: hand it to the event loop."""
    if request.method in LOOP_METHODS:
        return False
    if request.method == "initialize":
        _check_initialize(request)
        host = {"name": HOST_NAME, "version": HOST_VERSION}

        def reply(servers: list[ServerStatus]) -> None:
            outbox.result(request.id, {"host": host, "protocolVersion": PROTOCOL_VERSION, "servers": servers})

        board.answer_with(reply)
    elif request.method == "ping":
        outbox.result(request.id, {})
    elif request.method == "servers/list":
        board.answer_with(lambda servers: outbox.result(request.id, {"servers": servers}))
    else:
        raise McpRequestError(
            ErrorCode.METHOD_NOT_FOUND, f"method not found: {request.method!r}", request_id=request.id
        )
    return True
