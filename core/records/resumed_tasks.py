"""The history entry of a task the host resumed after a restart (`notifications/tasks/finished`).

The call that started the task got no answer (the host stopped under it: history shows it interrupted or
failed); the next host followed the task to its end. Its outcome becomes an entry of its own, as an MCP
call's would be, so the person finds the result where the call's would have been."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.items import CallToolResult, McpToolCallOutputItem
from core.calls.names import qualified_mcp_tool_name
from core.calls.outcome import dispatch_answer
from core.calls.validation import format_validation_error
from core.records.history import record_for


class TaskError(BaseModel):
    code: int
    message: str


class FinishedTask(BaseModel):
    model_config = ConfigDict(extra="ignore")
    server: str
    tool: str
    taskId: str
    startedAt: float
    result: CallToolResult | None = None
    error: TaskError | None = None


def finished_task(message: dict[str, Any]) -> dict[str, Any]:
    """`{entry, record}`: the history entry (`id, name, item, startedAt, note`) and its record."""
    try:
        task = FinishedTask.model_validate(message.get("task"))
    except ValidationError as error:
        raise McpRequestError(
            McpErrorCode.INVALID_PARAMS, f"task: {format_validation_error(error)}"
        ) from None
    call_id = f"task-{task.taskId}"
    name = qualified_mcp_tool_name(task.server, task.tool)
    if task.result is not None:
        output = McpToolCallOutputItem(call_id=call_id, result=task.result)
    else:
        why = task.error.message if task.error is not None else "the server gave no result"
        output = McpToolCallOutputItem(call_id=call_id, result=f"the resumed task failed: {why}")
    answer = dispatch_answer(output)
    entry = {
        "id": call_id,
        "name": name,
        "item": {"type": "function_call", "name": name, "arguments": json.dumps({}), "call_id": call_id},
        "startedAt": task.startedAt,
        "note": f"Task {task.taskId}: resumed after the Tabgate host restarted.",
    }
    return {"entry": entry, "record": record_for(answer)}
