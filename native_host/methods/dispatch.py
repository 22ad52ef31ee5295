"""Requests on the event loop: one task per request, cancellable, answered by the handler the method table
names (listings, calls, server admin), its result with the configured secrets taken out."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType

import anyio
from pydantic import ValidationError

from core.calls.capabilities import ServerStatus
from core.messages.host_methods import CANCEL_REQUEST

from ..config.loading import load_config
from ..config.paths import data_dir, default_config_path, log_dir
from ..config.preview import preview_statuses
from ..config.redact import KNOWN_SECRETS, scrub_data
from ..gateway.service import Gateway
from ..process.browser_link import BrowserLink
from ..process.jsonrpc import (
    CANCEL_METHOD,
    ErrorCode,
    McpRequestError,
    Notification,
    Request,
    RequestId,
    Response,
)
from ..process.method_table import LOOP_METHODS
from ..process.outbox import Outbox
from ..servers.manager import ConnectionManager
from ..servers.replies import describe
from ..servers.status import StatusBoard
from ..servers.tasks_store import TaskStore
from .calls import Calls
from .listings import Listings
from .server_admin import ServerAdmin
from .task_keeper import TaskKeeper
from .upload_copies import UploadCopies

log = logging.getLogger(__name__)


class Dispatcher:
    def __init__(
        self,
        config_path: Path | None,
        board: StatusBoard,
        outbox: Outbox,
        gateway: Gateway,
        browser: BrowserLink,
    ) -> None:
        self._config_path = config_path or default_config_path()
        self._gateway = gateway
        self._browser = (
            browser  # host → browser requests (the gateway's, and servers' requests to the person)
        )
        self._board = board
        self._outbox = outbox
        self._running: dict[RequestId, anyio.CancelScope] = {}
        self._manager: ConnectionManager | None = None
        self._methods: dict[str, Callable[[Request], Awaitable[object]]] = {}
        self._uploads = UploadCopies(data_dir() / "uploads")
        self._tasks: TaskKeeper | None = None
        self._resuming = anyio.create_task_group()  # the tasks an earlier host left, followed to their end

    async def __aenter__(self) -> Dispatcher:
        await anyio.to_thread.run_sync(self._uploads.remove_leftovers)
        config = load_config(self._config_path)
        for problem in config.problems:
            log.warning("config: %s", problem)
        self._manager = await ConnectionManager(
            list(config.servers.values()),
            board=self._board,
            log_dir=log_dir(),
            notify=self._outbox.notify,
            browser=self._browser,
        ).__aenter__()
        statuses = self._manager.initial_statuses()
        previews = {status["name"]: status for status in preview_statuses(self._config_path)}
        for name, transport in config.invalid.items():
            message = "; ".join(str(p) for p in config.problems_for(name))
            status = ServerStatus(name=name, transport=transport, status="failed", error=message)
            if name in previews:  # the limits as far as the broken table tells them
                status["toolTimeoutSec"] = previews[name]["toolTimeoutSec"]
                status["startupTimeoutSec"] = previews[name]["startupTimeoutSec"]
            statuses.append(status)
        self._board.replace(statuses)
        self._tasks = TaskKeeper(self._manager, self._outbox.notify, TaskStore(data_dir() / "tasks.json"))
        handlers = (
            Listings(self._manager),
            Calls(self._manager, self._outbox, self._uploads, self._tasks),
            ServerAdmin(self._manager, self._config_path, self._browser),
        )
        self._methods = {method: _handler(handlers, name) for method, name in LOOP_METHODS.items()}
        self._manager.start_all()
        await self._resuming.__aenter__()
        self._resuming.start_soon(self._tasks.resume, name="resumed tasks")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._uploads.close()
        self._resuming.cancel_scope.cancel()  # a task still followed stays kept for the next host
        await self._resuming.__aexit__(None, None, None)
        if self._manager is not None:
            await self._manager.__aexit__(exc_type, exc, tb)

    @property
    def manager(self) -> ConnectionManager:
        assert self._manager is not None, "the dispatcher is used inside `async with`"
        return self._manager

    # -- request lifecycle -------------------------------------------------------------------------------

    async def handle(self, message: Request | Notification | Response) -> None:
        if isinstance(message, Response):
            self._browser.deliver(message)
            return
        if isinstance(message, Notification):
            if message.method == CANCEL_METHOD:
                self._cancel(message)
            else:
                self._gateway.notification(message)
            return
        if message.id in self._running:
            self._outbox.error(
                message.id,
                McpRequestError(ErrorCode.INVALID_REQUEST, f"request id {message.id!r} is already in use"),
            )
            return
        with anyio.CancelScope() as scope:
            self._running[message.id] = scope
            try:
                result = await self._call(message)
            except McpRequestError as exc:
                self._outbox.error(message.id, exc)
            except Exception as exc:
                log.exception("request %r (%s) failed", message.id, message.method)
                self._outbox.error(
                    message.id, McpRequestError(ErrorCode.INTERNAL_ERROR, f"internal error: {describe(exc)}")
                )
            else:
                # Whatever a server sent back (tool results, resource contents, prompts, listings) leaves
                # without the configured secrets: a server that echoes one must not hand it to the browser.
                self._outbox.result(message.id, scrub_data(result, KNOWN_SECRETS))
            finally:
                del self._running[message.id]
        if scope.cancelled_caught:
            self._outbox.error(message.id, McpRequestError(ErrorCode.CANCELLED, "request cancelled"))

    def _cancel(self, message: Notification) -> None:
        try:
            target = CANCEL_REQUEST.params.model_validate(message.params).id
        except ValidationError:
            log.info("ignoring $/cancelRequest without a usable id")
            return
        scope = self._running.get(target)
        if scope is not None:
            if self._tasks is not None:
                self._tasks.cancel_asked(target)
            scope.cancel()

    async def _call(self, request: Request) -> object:
        method = self._methods.get(request.method)
        if method is None:
            raise McpRequestError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {request.method!r}")
        return await method(request)


def _handler(handlers: tuple[object, ...], name: str) -> Callable[[Request], Awaitable[object]]:
    """The one handler called `name` (process/method_table.py names each method's)."""
    found = [getattr(group, name) for group in handlers if hasattr(group, name)]
    if len(found) != 1:
        raise LookupError(f"the method table's handler {name!r} is defined {len(found)} times")
    handler: Callable[[Request], Awaitable[object]] = found[0]
    return handler
