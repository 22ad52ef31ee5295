"""Everything the host says to the browser goes through the Outbox: encoding, chunking, the frame writer."""

from __future__ import annotations

import logging

from .framing import MAX_OUTGOING, FrameWriter
from .jsonrpc import (
    ErrorCode,
    JsonObject,
    McpRequestError,
    RequestId,
    dumps,
    error_message,
    notification_message,
    response_bodies,
    result_message,
)

log = logging.getLogger(__name__)


class Outbox:
    """Sends wait while the browser has 64 MiB unread (FrameWriter); the reader waits in `wait_for_room`."""

    def __init__(self, writer: FrameWriter) -> None:
        self._writer = writer

    def wait_for_room(self) -> None:
        self._writer.wait_for_room()

    def result(self, request_id: RequestId, result: object) -> None:
        try:
            body = dumps(result_message(request_id, result))
        except ValueError as exc:  # NaN/Infinity, or a value json cannot encode
            log.warning("result of request %r is not JSON-encodable: %s", request_id, exc)
            self.error(
                request_id,
                McpRequestError(ErrorCode.INTERNAL_ERROR, f"the result cannot be sent as JSON: {exc}"),
            )
            return
        try:
            self._writer.send(response_bodies(request_id, body))
        except McpRequestError as exc:
            log.warning("request %r: %s", request_id, exc.message)
            self.error(request_id, exc)

    def error(self, request_id: RequestId | None, error: McpRequestError) -> None:
        message = error_message(request_id, error)
        try:
            body = dumps(message)
        except ValueError:
            body = dumps(error_message(request_id, McpRequestError(error.code, error.message)))
        # Error data comes from MCP servers and could be huge; a response must still fit, so chunk it too.
        try:
            self._writer.send(response_bodies(request_id, body))
        except McpRequestError:
            self._writer.send(
                [dumps(error_message(request_id, McpRequestError(error.code, error.message[:4096])))]
            )

    def request(self, request_id: str, method: str, params: JsonObject) -> None:
        """A request to the browser (the agent gateway's); raises McpRequestError when it cannot be sent
        whole."""
        try:
            body = dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        except ValueError as exc:
            raise McpRequestError(
                ErrorCode.INVALID_PARAMS, f"{method}: the request is not JSON: {exc}"
            ) from None
        if len(body) > MAX_OUTGOING:
            raise McpRequestError(
                ErrorCode.RESULT_TOO_LARGE,
                f"{method}: {len(body)} bytes is over the browser's 1 MiB message limit",
            )
        self._writer.send([body])

    def notify(self, method: str, params: JsonObject) -> None:
        try:
            body = dumps(notification_message(method, params))
        except ValueError as exc:
            log.warning("dropping notification %s: %s", method, exc)
            return
        if len(body) > MAX_OUTGOING:
            log.warning("dropping notification %s: %d bytes is over the frame limit", method, len(body))
            return
        self._writer.send([body])
