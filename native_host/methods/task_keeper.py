"""The tasks of the person's and agents' tool calls, followed to their end and kept across host restarts.

A `tools/call` answered with a task is followed here: its changes go to the browser as the call's
`notifications/progress`, and the call answers with the task's result. The task is written to the data
folder while it runs. The browser's `$/cancelRequest` for the call cancels the task (`tasks/cancel`) and
forgets it; a host that stops (or is killed) without answering the call leaves it kept, and the next host
follows it again once its server is up, telling the browser the outcome as `notifications/tasks/finished`
(the browser records it in the history). The task's own TTL and a day bound how long it is followed."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import Client

from ..config.preview import MAX_TIMEOUT_SEC
from ..config.redact import KNOWN_SECRETS, scrub_data
from ..process.jsonrpc import McpRequestError, RequestId
from ..servers.connection import Connection
from ..servers.manager import ConnectionManager
from ..servers.notifications import Notify
from ..servers.replies import to_json
from ..servers.tasks import TaskState
from ..servers.tasks_follow import Report, cancel, follow, poll
from ..servers.tasks_store import KeptTask, TaskStore
from .server_use import use

log = logging.getLogger(__name__)

FINISHED: Final = "notifications/tasks/finished"


class TaskKeeper:
    def __init__(self, manager: ConnectionManager, notify: Notify, store: TaskStore) -> None:
        self._manager = manager
        self._notify = notify
        self._store = store
        self._following: set[RequestId] = set()
        self._cancel_asked: set[RequestId] = set()  # of those: the calls the browser cancelled

    async def follow(
        self, request_id: RequestId, connection: Connection, tool: str, task: TaskState, report: Report
    ) -> types.CallToolResult:
        """The result of the task a call got; cancelled with the call when the browser asks."""
        kept = KeptTask(
            server=connection.name, tool=tool, task_id=task.task_id, started_at=time.time() * 1000
        )
        await anyio.to_thread.run_sync(self._store.add, kept)
        self._following.add(request_id)
        forget = True
        try:
            return await _follow(connection, lambda client: follow(client.session, task, report))
        except anyio.get_cancelled_exc_class():
            if request_id not in self._cancel_asked:
                forget = False  # the host is stopping: the next host resumes the task
                raise
            with anyio.CancelScope(shield=True):
                await _cancel(connection, task.task_id)
            raise
        finally:
            self._following.discard(request_id)
            self._cancel_asked.discard(request_id)
            if forget:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self._store.remove, kept)

    def cancel_asked(self, request_id: RequestId) -> None:
        """The browser cancels this call: a task it is following is cancelled on its server too."""
        if request_id in self._following:
            self._cancel_asked.add(request_id)

    async def resume(self) -> None:
        """Follow the tasks an earlier host left unfinished (for the host's life: run it in a task group)."""
        left = await anyio.to_thread.run_sync(self._store.load)
        if left:
            log.info("resuming %d task(s) an earlier host left running", len(left))
        async with anyio.create_task_group() as group:
            for kept in left:
                group.start_soon(self._resume, kept)

    async def _resume(self, kept: KeptTask) -> None:
        note: dict[str, Any] = {
            "server": kept.server,
            "tool": kept.tool,
            "taskId": kept.task_id,
            "startedAt": kept.started_at,
        }
        try:
            connection = self._manager.get(kept.server)

            async def resumed(client: Client) -> types.CallToolResult:
                return await follow(client.session, await poll(client.session, kept.task_id), None)

            note["result"] = to_json(await _follow(connection, resumed))
        except McpRequestError as exc:
            note["error"] = exc.to_json()
        log.info("task %s of %s/%s resumed and finished", kept.task_id, kept.server, kept.tool)
        self._notify(FINISHED, scrub_data(note, KNOWN_SECRETS))
        await anyio.to_thread.run_sync(self._store.remove, kept)


async def _follow(
    connection: Connection, action: Callable[[Client], Awaitable[types.CallToolResult]]
) -> types.CallToolResult:
    # Each tasks/get is bounded on its own; the whole task only by its TTL and a day.
    return await use(connection, action, MAX_TIMEOUT_SEC)


async def _cancel(connection: Connection, task_id: str) -> None:
    try:
        await use(connection, lambda client: cancel(client.session, task_id), wait_for_start=False)
    except McpRequestError as exc:
        log.info("tasks/cancel of %s on %s: %s", task_id, connection.name, exc.message)
