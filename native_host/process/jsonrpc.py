"""JSON-RPC 2.0 messages for the extension protocol: parsing, error codes, encoding and `$/chunk` splitting.

Standard library only: this module is on the path that must answer `initialize` within the start-up budget,
before pydantic or mcp are loaded, so the envelope is checked by hand here (method params are validated later,
with pydantic).
"""

from __future__ import annotations

import json
from typing import Any, Final, NamedTuple

from core.calls.capabilities import McpErrorCode
from core.calls.capabilities import McpRequestError as McpRequestError  # the host's one error type too

from .framing import MAX_OUTGOING

MAX_RESPONSE: Final = 64 * 1024 * 1024  # contract §4: larger responses fail with RESULT_TOO_LARGE
MAX_ID_LENGTH: Final = 256  # an id is echoed in every chunk of a response, so it must stay small
CHUNK_METHOD: Final = "$/chunk"
CANCEL_METHOD: Final = "$/cancelRequest"

type RequestId = str | int
type JsonObject = dict[str, Any]


# One table of the contract's error codes and one error type, shared with the core that reads them.
ErrorCode = McpErrorCode


class Request(NamedTuple):
    id: RequestId
    method: str
    params: JsonObject


class Notification(NamedTuple):
    method: str
    params: JsonObject


class Response(NamedTuple):
    """The browser's answer to a request the host made (the agent gateway's `gateway/*` requests)."""

    id: RequestId
    result: Any
    error: JsonObject | None


def _valid_id(value: object) -> bool:
    # bool is an int subclass but not a JSON-RPC id; floats and null are legal JSON-RPC but useless to us.
    if isinstance(value, str):
        return len(value) <= MAX_ID_LENGTH
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63


def parse_message(body: bytes) -> Request | Notification | Response | None:
    """One incoming frame as a request, a notification or a response; None for a response nobody can use."""
    try:
        message = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise McpRequestError(
            ErrorCode.PARSE_ERROR, f"parse error: frame is not UTF-8 JSON ({exc})"
        ) from None
    if not isinstance(message, dict):
        kind = "a batch (array)" if isinstance(message, list) else type(message).__name__
        raise McpRequestError(
            ErrorCode.INVALID_REQUEST, f"invalid request: expected a JSON object, got {kind}"
        )
    raw_id = message.get("id")
    request_id = raw_id if _valid_id(raw_id) else None
    if message.get("jsonrpc") != "2.0":
        raise McpRequestError(
            ErrorCode.INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"', request_id=request_id
        )
    method = message.get("method")
    if method is None and "id" in message and ("result" in message or "error" in message):
        error = message.get("error")
        if request_id is None or (error is not None and not isinstance(error, dict)):
            return None
        return Response(request_id, message.get("result"), error)
    if not isinstance(method, str) or not method:
        raise McpRequestError(
            ErrorCode.INVALID_REQUEST,
            'invalid request: "method" must be a non-empty string',
            request_id=request_id,
        )
    if "id" in message and request_id is None:
        raise McpRequestError(
            ErrorCode.INVALID_REQUEST,
            f'invalid request: "id" must be a string (at most {MAX_ID_LENGTH} characters) or an integer',
        )
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        if request_id is None:
            raise McpRequestError(
                ErrorCode.INVALID_REQUEST, f"invalid notification {method!r}: params must be an object"
            )
        raise McpRequestError(
            ErrorCode.INVALID_PARAMS,
            f"invalid params for {method!r}: params must be an object",
            request_id=request_id,
        )
    if request_id is None:
        return Notification(method, params)
    return Request(request_id, method, params)


def dumps(message: object) -> bytes:
    """Compact UTF-8 JSON; text with lone surrogates (legal in JSON, not in UTF-8) falls back to \\u escapes.

    Raises ValueError for NaN/Infinity, which Chrome's JSON parser would reject."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii")


def request_message(request_id: RequestId, method: str, params: JsonObject) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def result_message(request_id: RequestId, result: object) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: RequestId | None, error: McpRequestError) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def notification_message(method: str, params: JsonObject) -> JsonObject:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _escaped_size(data: bytes) -> int:
    # Text from `dumps` has no raw control characters, so inside a JSON string only `"` and `\` need escapes.
    return len(data) + data.count(b'"') + data.count(b"\\")


def response_bodies(request_id: RequestId | None, body: bytes, limit: int = MAX_OUTGOING) -> list[bytes]:
    """The frame bodies that carry one response: itself when it fits in a frame, else `$/chunk` slices.

    Slices are cut from the UTF-8 bytes at character boundaries and escaped with two byte replacements, so a
    64 MiB response costs a few copies, not a JSON encoding per slice. Raises
    McpRequestError(RESULT_TOO_LARGE) past the 64 MiB response limit."""
    if len(body) <= limit:
        return [body]
    if len(body) > MAX_RESPONSE:
        raise McpRequestError(
            ErrorCode.RESULT_TOO_LARGE,
            f"result too large: {len(body)} bytes (the limit is {MAX_RESPONSE} bytes)",
        )
    head = b'{"jsonrpc":"2.0","method":"%s","params":{"id":%s,"seq":' % (
        CHUNK_METHOD.encode(),
        dumps(request_id),
    )
    tail = b'"}}'
    budget = limit - len(head) - len(b'%d,"last":false,"data":"' % len(body)) - len(tail)
    if budget < 64:
        raise McpRequestError(
            ErrorCode.RESULT_TOO_LARGE, "result too large: the request id leaves no room for chunks"
        )
    bodies: list[bytes] = []
    pos = 0
    while pos < len(body):
        size = min(budget, len(body) - pos)
        while (overflow := _escaped_size(body[pos : pos + size]) - budget) > 0:
            size -= overflow  # each byte dropped saves at least one escaped byte
        while pos + size < len(body) and body[pos + size] & 0xC0 == 0x80:
            size -= 1  # never cut inside a UTF-8 sequence
        data = body[pos : pos + size].replace(b"\\", b"\\\\").replace(b'"', b'\\"')
        pos += size
        last = b"true" if pos >= len(body) else b"false"
        bodies.append(b'%s%d,"last":%s,"data":"%s%s' % (head, len(bodies), last, data, tail))
    return bodies
