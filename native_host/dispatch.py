"""Requests on the event loop: one task per request, cancellable by `$/cancelRequest`."""

from __future__ import annotations

import logging
from pathlib import Path
from types import TracebackType

import anyio

from .jsonrpc import CANCEL_METHOD, ErrorCode, Notification, Request, RequestId, RpcError
from .outbox import Outbox
from .status import StatusBoard

log = logging.getLogger(__name__)


class Dispatcher:
    def __init__(self, config_path: Path | None, board: StatusBoard, outbox: Outbox) -> None:
        self._config_path = config_path
        self._board = board
        self._outbox = outbox
        self._running: dict[RequestId, anyio.CancelScope] = {}

    async def __aenter__(self) -> Dispatcher:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    async def handle(self, message: Request | Notification) -> None:
        if isinstance(message, Notification):
            if message.method == CANCEL_METHOD:
                self._cancel(message)
            return
        if message.id in self._running:
            self._outbox.error(
                message.id,
                RpcError(ErrorCode.INVALID_REQUEST, f"request id {message.id!r} is already in use"),
            )
            return
        with anyio.CancelScope() as scope:
            self._running[message.id] = scope
            try:
                result = await self._call(message)
            except RpcError as exc:
                self._outbox.error(message.id, exc)
            except Exception as exc:
                log.exception("request %r (%s) failed", message.id, message.method)
                self._outbox.error(message.id, RpcError(ErrorCode.INTERNAL_ERROR, f"internal error: {exc!r}"))
            else:
                self._outbox.result(message.id, result)
            finally:
                del self._running[message.id]
        if scope.cancelled_caught:
            self._outbox.error(message.id, RpcError(ErrorCode.CANCELLED, "request cancelled"))

    def _cancel(self, message: Notification) -> None:
        scope = self._running.get(message.params.get("id"))  # type: ignore[arg-type]
        if scope is not None:
            scope.cancel()

    async def _call(self, request: Request) -> object:
        raise RpcError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {request.method!r}")
