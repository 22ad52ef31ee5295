"""Following one task to its end: `tasks/get` at the server's `pollIntervalMs` until the task is completed,
failed or cancelled, its changes reported as progress, its questions answered with `tasks/update`; and the
client extension that declares tasks (a plain `Client.call_tool` gets a task's result the same way)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ClientSession

from .tasks import (
    TASKS_EXTENSION,
    TERMINAL,
    CancelTask,
    CreatedTask,
    GetTask,
    PolledTask,
    TaskParams,
    TaskState,
    UpdateTask,
    UpdateTaskParams,
)

# The server suggests the pace; these keep a bad suggestion from hammering it or stalling the call.
DEFAULT_POLL_SECONDS: Final = 1.0
MIN_POLL_SECONDS: Final = 0.1
MAX_POLL_SECONDS: Final = 30.0
REQUEST_SECONDS: Final = 60.0  # one tasks/get, tasks/update or tasks/cancel
CANCEL_SECONDS: Final = 5.0  # the cancel sent when the call is cancelled: the person is not kept waiting
MAX_QUESTIONS: Final = 64  # questions remembered as answered, per task (the spec keeps keys unique)

type Report = Callable[[float, float | None, str | None], Awaitable[None]]


async def follow(session: ClientSession, task: TaskState, report: Report | None) -> types.CallToolResult:
    """The task's result; its JSON-RPC error raised as MCPError. Each change of status or message is
    reported (the count of changes as progress, the server's `statusMessage` as the message)."""
    deadline = _deadline(task)
    answered: set[str] = set()
    changes = 0
    seen: tuple[str, str | None] | None = None
    while True:
        if (task.status, task.status_message) != seen and report is not None:
            seen, changes = (task.status, task.status_message), changes + 1
            await report(changes, None, task.status_message or task.status)
        if isinstance(task, PolledTask):
            if task.status in TERMINAL:
                return _outcome(task)
            if task.status == "input_required" and task.input_requests:
                await _answer(session, task, answered)
        if deadline is not None and datetime.now(deadline.tzinfo) > deadline:
            # The spec's backstop: the server may have discarded a task past its TTL.
            raise MCPError(
                types.REQUEST_TIMEOUT,
                f"task {task.task_id} is past its TTL ({task.ttl_ms} ms) and not finished",
            )
        await anyio.sleep(_pause(task))
        task = await poll(session, task.task_id)


async def poll(session: ClientSession, task_id: str) -> PolledTask:
    """The task as the server has it now (`tasks/get`)."""
    with anyio.move_on_after(REQUEST_SECONDS):
        return await session.send_request(GetTask(params=TaskParams(task_id=task_id)), PolledTask)
    raise MCPError(types.REQUEST_TIMEOUT, f"the server did not answer tasks/get within {REQUEST_SECONDS:g} s")


async def cancel(session: ClientSession, task_id: str) -> None:
    """Ask the server to stop the task (cooperative: it acknowledges, and may finish anyway)."""
    with anyio.fail_after(CANCEL_SECONDS):
        await session.send_request(CancelTask(params=TaskParams(task_id=task_id)), types.EmptyResult)


def _outcome(task: PolledTask) -> types.CallToolResult:
    if task.status == "completed":
        return types.CallToolResult.model_validate(task.result or {"content": []})
    if task.status == "failed":
        error = task.error or {}
        raise MCPError(
            int(error.get("code", types.INTERNAL_ERROR)),
            str(error.get("message") or task.status_message or "the task failed"),
            error.get("data"),
        )
    raise MCPError(
        types.INTERNAL_ERROR, f"the server cancelled the task: {task.status_message or 'no reason given'}"
    )


async def _answer(session: ClientSession, task: PolledTask, answered: set[str]) -> None:
    """Answer the questions not answered yet, through the client's own callbacks (the person, for
    elicitation), as for a server's direct request."""
    asked = {key: question for key, question in (task.input_requests or {}).items() if key not in answered}
    if not asked:
        return
    if len(answered) + len(asked) > MAX_QUESTIONS:
        raise MCPError(types.INTERNAL_ERROR, f"the task asked more than {MAX_QUESTIONS} questions")
    responses: dict[str, types.InputResponse] = {}
    for key, question in asked.items():
        reply = await session.dispatch_input_request(
            ClientRequestContext(session=session, request_id=key), question
        )
        if isinstance(reply, types.ErrorData):
            raise MCPError(reply.code, reply.message, reply.data)
        responses[key] = reply
    with anyio.fail_after(REQUEST_SECONDS):
        await session.send_request(
            UpdateTask(params=UpdateTaskParams(task_id=task.task_id, input_responses=responses)),
            types.EmptyResult,
        )
    answered.update(asked)


def _pause(task: TaskState) -> float:
    if task.poll_interval_ms is None:
        return DEFAULT_POLL_SECONDS
    return min(MAX_POLL_SECONDS, max(MIN_POLL_SECONDS, task.poll_interval_ms / 1000))


def _deadline(task: TaskState) -> datetime | None:
    """`createdAt` + `ttlMs`: the spec's backstop after which a task still running may be given up."""
    if task.ttl_ms is None:
        return None
    try:
        created = datetime.fromisoformat(task.created_at)
    except ValueError:
        return None
    return created + timedelta(milliseconds=task.ttl_ms)


class TasksExtension(ClientExtension):
    """Declares tasks on 2026-07-28 requests (a result claim makes the SDK advertise it only on that wire,
    the only one a task handle can come on). The host follows its own calls' tasks itself, reporting progress
    and keeping them across restarts; a plain `Client.call_tool` gets the task's result."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_resolve),)


async def _resolve(task: CreatedTask, context: ClaimContext) -> types.CallToolResult:
    return await follow(context.session, task, None)
