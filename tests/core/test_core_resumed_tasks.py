"""A task the host resumed after a restart becomes a history entry of its own, as an MCP call's would be."""

from __future__ import annotations

from typing import Any

import pytest

from core.runtime.facade import Service

pytestmark = pytest.mark.unit

TASK = {"server": "jobs", "tool": "wait_job", "taskId": "t1", "startedAt": 1700000000000.0}


async def finished(task: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = await Service(emit=lambda event: None).handle(
        {"type": "task/finished", "task": task}
    )
    return answer


async def test_a_finished_task_is_an_mcp_call_entry_with_its_result() -> None:
    result = {"content": [{"type": "text", "text": "job done"}], "isError": False}
    answer = await finished({**TASK, "result": result})
    entry, record = answer["entry"], answer["record"]
    assert entry["id"] == "task-t1"
    assert entry["name"] == entry["item"]["name"] == "mcp__jobs__wait_job"
    assert entry["startedAt"] == TASK["startedAt"]
    assert "resumed" in entry["note"]
    assert record["status"] == "done"
    assert record["answer"]["output"]["result"] == {"Ok": result}


async def test_a_failed_task_is_recorded_with_its_error() -> None:
    answer = await finished({**TASK, "error": {"code": -32603, "message": "rate limited"}})
    assert answer["record"]["answer"]["success"] is False
    assert "rate limited" in answer["record"]["answer"]["output"]["result"]["Err"]


async def test_a_malformed_notice_is_refused_naming_the_field() -> None:
    answer = await finished({"server": "jobs"})
    assert answer["error"]["code"] == -32602
    assert "tool" in answer["error"]["message"]
