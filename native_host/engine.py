"""The event loop thread: it imports mcp (close to a second) and runs every MCP connection, while the main
thread keeps reading frames and answering `initialize` and `ping` straight away."""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .process.jsonrpc import ErrorCode, McpRequestError, Notification, Request, Response
from .process.outbox import Outbox
from .servers.status import StatusBoard

if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncIterator

    from anyio import Event
    from anyio.abc import TaskGroup

    from .gateway.standing import StateFile
    from .methods.dispatch import Dispatcher

log = logging.getLogger(__name__)

type Message = Request | Notification | Response

EARLY_WINDOW_SECONDS = 0.3


class Engine:
    def __init__(self, config_path: Path | None, board: StatusBoard, outbox: Outbox) -> None:
        self._config_path = config_path
        self._board = board
        self._outbox = outbox
        self._lock = threading.Lock()
        self._backlog: list[Message] = []  # what arrived while mcp was still importing
        # Where requests go once the loop runs: its asyncio loop and the task group that runs each request.
        # call_soon_threadsafe is the lightest hop from the reader thread (an anyio portal cost ~0.3 ms).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: TaskGroup | None = None
        self._dispatcher: Dispatcher | None = None
        self._stop_event: Event | None = None
        self._stopping = False
        self._failure: str | None = None
        self._thread = threading.Thread(target=self._run, name="event-loop", daemon=True)
        self._go = threading.Event()

    def first_answer_sent(self) -> None:
        self._go.set()

    def start(self) -> None:
        self._thread.start()

    def submit(self, message: Message) -> None:
        """Hand a request or notification to the event loop; callable from any thread, never blocks."""
        with self._lock:
            if self._loop is None or self._tasks is None or self._dispatcher is None:
                if self._failure is None and not self._stopping:
                    self._backlog.append(message)
                    return
                reason = self._failure or "the host is shutting down"
            else:
                try:
                    self._loop.call_soon_threadsafe(self._tasks.start_soon, self._dispatcher.handle, message)
                    return
                except RuntimeError:  # the portal has stopped
                    reason = "the host is shutting down"
        self._reject(message, reason)

    def stop(self, timeout: float) -> None:
        """Close every connection (cancelling requests still running), waiting at most `timeout` seconds."""
        with self._lock:
            self._stopping = True
            loop, event = self._loop, self._stop_event
        self._go.set()
        if loop is not None and event is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already closed
                loop.call_soon_threadsafe(event.set)
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("connections did not close within %.1f s; exiting anyway", timeout)

    def _reject(self, message: Message, reason: str) -> None:
        if isinstance(message, Request):
            self._outbox.error(message.id, McpRequestError(ErrorCode.SERVER_UNAVAILABLE, reason))

    def _run(self) -> None:
        # Importing mcp holds the GIL for most of a second; let the reader answer `initialize` first.
        self._go.wait(EARLY_WINDOW_SECONDS)
        with self._lock:
            stopped, backlog = self._stopping, self._backlog
            if stopped:  # EOF before the loop: nothing to import, serve or close; still answer what came
                self._backlog = []
        if stopped:
            for message in backlog:
                self._reject(message, "the host is shutting down")
            return
        try:
            import anyio

            anyio.run(self._main)
        except BaseException as exc:  # the loop itself died: say so to every caller rather than hang them
            log.exception("the event loop stopped")
            with self._lock:
                self._failure = f"the host's event loop failed: {exc!r}"
                self._loop = self._tasks = self._dispatcher = None
                backlog, self._backlog = self._backlog, []
            for message in backlog:
                self._reject(message, self._failure)

    async def _main(self) -> None:
        import asyncio  # asyncio and anyio: after the first answer, off the reader's way to it

        import anyio

        from .gateway.place import socket_path
        from .gateway.service import Gateway
        from .methods.dispatch import Dispatcher
        from .process.browser_link import BrowserLink

        stop = anyio.Event()
        browser = BrowserLink(self._outbox)
        gateway = Gateway(self._outbox, socket_path(), browser)
        gateway.state_file.write(gateway=None)  # starting: the browser says on or off once it is linked
        async with (
            Dispatcher(self._config_path, self._board, self._outbox, gateway, browser) as dispatcher,
            anyio.create_task_group() as requests,
            _removed_at_exit(gateway.state_file),
        ):
            with self._lock:
                if self._stopping:  # EOF came while mcp was importing: end now (nothing runs in `requests`)
                    return
                self._loop, self._tasks = asyncio.get_running_loop(), requests
                self._dispatcher, self._stop_event = dispatcher, stop
                backlog, self._backlog = self._backlog, []
            requests.start_soon(gateway.run)
            for message in backlog:
                requests.start_soon(dispatcher.handle, message)
            await stop.wait()
            with self._lock:
                self._loop = self._tasks = None
            requests.cancel_scope.cancel()  # requests still running end as the host stops


@contextlib.asynccontextmanager
async def _removed_at_exit(state_file: StateFile) -> AsyncIterator[None]:
    """The host's state file lives as long as the host serves (agents read a leftover as "host stopped")."""
    try:
        yield
    finally:
        state_file.remove()
