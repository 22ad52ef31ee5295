"""A test MCP server that answers `wait_job` with a task (`io.modelcontextprotocol/tasks`):
`python tasks_server.py STATE_DIR`.

Its tasks live in STATE_DIR, not in the process, as an external job system's would: a server started again
(after the host that ran it was killed) still answers `tasks/get` for a task the last one created. A task
stays `working` until a file `release` exists in STATE_DIR; every `tasks/get` meanwhile counts one poll and
says so in `statusMessage`. `tasks/cancel` marks the task cancelled and leaves `cancelled-<taskId>` in
STATE_DIR. A client that does not declare the extension gets -32021 (the spec's missing capability)."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import mcp_types as types
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer

STATE = Path(sys.argv[1])
EXTENSION: Final = "io.modelcontextprotocol/tasks"
MISSING_CAPABILITY: Final = -32021
POLL_INTERVAL_MS: Final = 100
TTL_MS: Final = 600_000


class TaskParams(types.RequestParams):
    task_id: str


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _path(task_id: str) -> Path:
    if not task_id.isalnum():
        raise MCPError(types.INVALID_PARAMS, f"no such task: {task_id!r}")
    return STATE / f"task-{task_id}.json"


def _load(task_id: str) -> dict[str, Any]:
    path = _path(task_id)
    if not path.exists():
        raise MCPError(types.INVALID_PARAMS, f"Failed to retrieve task: no task {task_id!r}")
    task: dict[str, Any] = json.loads(path.read_text())
    return task


def _save(task: dict[str, Any]) -> None:
    task["lastUpdatedAt"] = _now()
    _path(task["taskId"]).write_text(json.dumps(task))


class Tasks(Extension):
    identifier = EXTENSION

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding(method="tasks/get", params_type=TaskParams, handler=self.get),
            MethodBinding(method="tasks/cancel", params_type=TaskParams, handler=self.cancel),
        )

    async def intercept_tool_call(
        self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name != "wait_job":
            return await call_next(ctx)
        capabilities = ctx.session.client_capabilities
        if capabilities is None or EXTENSION not in (capabilities.extensions or {}):
            raise MCPError(
                MISSING_CAPABILITY,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        label = str((params.arguments or {}).get("label", ""))
        now = _now()
        task = {
            "taskId": uuid.uuid4().hex,
            "status": "working",
            "statusMessage": "queued",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_INTERVAL_MS,
            "label": label,
            "polls": 0,
        }
        _save(task)
        return {"resultType": "task", **_public(task)}

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = _load(params.task_id)
        if task["status"] == "working":
            task["polls"] += 1
            if (STATE / "release").exists():
                task["status"] = "completed"
                task["statusMessage"] = "done"
                text = f"job {task['label']} done"
                task["result"] = {
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": {"result": text},  # the tool's output schema (MCPServer's)
                    "isError": False,
                }
            else:
                task["statusMessage"] = f"working on {task['label']}: poll {task['polls']}"
            _save(task)
        return {"resultType": "complete", **_public(task)}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = _load(params.task_id)
        if task["status"] == "working":
            task["status"], task["statusMessage"] = "cancelled", "cancelled by the client"
            _save(task)
        (STATE / f"cancelled-{params.task_id}").write_text("cancelled")
        return {"resultType": "complete"}


def _public(task: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in task.items() if key not in ("label", "polls")}


mcp = MCPServer("tasks", version="1.0", extensions=[Tasks()])


@mcp.tool()
def wait_job(label: str) -> str:
    """A job that runs until released; answered with a task."""
    raise MCPError(MISSING_CAPABILITY, "Missing required client capability")


@mcp.tool()
def quick(text: str) -> str:
    """Answered at once, without a task."""
    return text


if __name__ == "__main__":
    mcp.run()
