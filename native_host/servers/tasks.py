"""The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the client side: its wire shapes.

A server that negotiated the extension may answer `tools/call` with a task handle (`resultType: "task"`)
instead of the result; the client polls `tasks/get` until the task ends (the result or the JSON-RPC error
inlined), answers `input_required` with `tasks/update`, and stops it with `tasks/cancel`. The SDK 2.3 has the
2025-11-25 task types only (a different, removed design), and no client for either."""

from __future__ import annotations

from typing import Any, Final, Literal

import mcp_types as types
from pydantic import ConfigDict

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})

type TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class TaskState(types.Result):
    """What every task message carries (the spec's `Task`)."""

    model_config = ConfigDict(extra="ignore")
    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class CreatedTask(TaskState):
    """A `tools/call` answered with a task handle (`CreateTaskResult`)."""

    result_type: Literal["task"] = "task"


class PolledTask(TaskState):
    """A `tasks/get` answer (`DetailedTask`): the result, the error or the questions, by status."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: types.InputRequests | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # the spec routes task requests by `Mcp-Name: <taskId>` over HTTP


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class UpdateTaskParams(TaskParams):
    input_responses: types.InputResponses


class UpdateTask(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"
