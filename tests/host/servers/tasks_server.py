"""A test MCP server that answers `wait_job` with a task (`io.modelcontextprotocol/tasks`):
`python tasks_server.py STATE_DIR`.

Its tasks live in STATE_DIR, not in the process, as an external job system's would: a server started again
(after the host that ran it was killed) still answers `tasks/get` for a task the last one created. A task
stays `working` until a file `release` exists in STATE_DIR; every `tasks/get` meanwhile counts one poll and
says so in `statusMessage`. `ask_job` asks its question first (`input_required`, answered with `tasks/update`)
and completes with the answer. `tasks/cancel` marks the task cancelled and leaves `cancelled-<taskId>` in
STATE_DIR. A client that does not declare the extension gets -32021 (the spec's missing capability)."""

from __future__ import annotations

import json
import os
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


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


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
    """Written whole or not at all: the tests read these files while the server runs."""
    task["lastUpdatedAt"] = _now()
    path = _path(task["taskId"])
    written = path.with_suffix(".tmp")
    written.write_text(json.dumps(task))
    os.replace(written, path)


class Tasks(Extension):
    identifier = EXTENSION

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding(method="tasks/get", params_type=TaskParams, handler=self.get),
            MethodBinding(method="tasks/cancel", params_type=TaskParams, handler=self.cancel),
            MethodBinding(method="tasks/update", params_type=UpdateParams, handler=self.update),
        )

    async def intercept_tool_call(
        self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name not in ("wait_job", "ask_job"):
            return await call_next(ctx)
        capabilities = ctx.session.client_capabilities
        if capabilities is None or EXTENSION not in (capabilities.extensions or {}):
            raise MCPError(
                MISSING_CAPABILITY,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        label = str((params.arguments or {}).get("label", ""))
        question = (params.arguments or {}).get("question")
        now = _now()
        task = {
            "taskId": uuid.uuid4().hex,
            "status": "working" if question is None else "input_required",
            "statusMessage": "queued" if question is None else "waiting for an answer",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_INTERVAL_MS,
            "label": label,
            "polls": 0,
            "question": question,
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
        if task["status"] == "input_required" and "answer" in task and not task["stale"]:
            text = f"answered: {task['answer']}"
            task["status"], task["statusMessage"] = "completed", "answered"
            task["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
            _save(task)
        if task["status"] == "input_required":
            if "answer" in task:  # the answer is taken in eventually: one more poll still shows the question
                task["stale"] -= 1
                _save(task)
            asking = {"q1": _asking(task["question"])}
            return {"resultType": "complete", **_public(task), "inputRequests": asking}
        return {"resultType": "complete", **_public(task)}

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> HandlerResult:
        task = _load(params.task_id)
        reply = params.input_responses.get("q1")
        if task["status"] == "input_required" and isinstance(reply, dict):
            task["updates"] = task.get("updates", 0) + 1
            task["answer"] = (reply.get("content") or {}).get("answer", reply.get("action"))
            task["stale"] = 1
            _save(task)
        return {"resultType": "complete"}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = _load(params.task_id)
        if task["status"] == "working":
            task["status"], task["statusMessage"] = "cancelled", "cancelled by the client"
            _save(task)
        (STATE / f"cancelled-{params.task_id}").write_text("cancelled")
        return {"resultType": "complete"}


PRIVATE: Final = frozenset({"label", "polls", "question", "answer", "stale", "updates"})


def _public(task: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in task.items() if key not in PRIVATE}


def _asking(question: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    return {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": question, "requestedSchema": schema},
    }


mcp = MCPServer("tasks", version="1.0", extensions=[Tasks()])


@mcp.tool()
def wait_job(label: str) -> str:
    """A job that runs until released; answered with a task."""
    raise MCPError(MISSING_CAPABILITY, "Missing required client capability")


@mcp.tool()
def ask_job(question: str) -> str:
    """A job that asks the person a question first; answered with a task."""
    raise MCPError(MISSING_CAPABILITY, "Missing required client capability")


@mcp.tool()
def quick(text: str) -> str:
    """Answered at once, without a task."""
    return text


if __name__ == "__main__":
    mcp.run()
