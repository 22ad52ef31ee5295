"""How a server's `tools/call` answer is read on its way back (no process needed): `CALL_RESULT` reads a plain
result into `CallToolResult` alone and everything else through the union of the three (servers/
input_required.py), and `completed` fills in `resultType` in the message itself (servers/result_type.py).
Each shape must come out as the plain union reads it: the shortcut may only save time."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage
from pydantic import TypeAdapter, ValidationError

from native_host.servers.input_required import CALL_RESULT
from native_host.servers.replies import to_json
from native_host.servers.result_type import completed
from native_host.servers.tasks import CreatedTask

pytestmark = pytest.mark.host

UNION = TypeAdapter(types.CallToolResult | types.InputRequiredResult | CreatedTask)
TEXT = [{"type": "text", "text": "hi"}]
TASK = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "x"}
QUESTION = {
    "q": {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "name?",
            "requestedSchema": {"type": "object", "properties": {}},
        },
    }
}

SHAPES: dict[str, dict[str, Any]] = {
    "a plain result (2025-11-25)": {"content": TEXT},
    "a plain result (2026-07-28)": {"content": TEXT, "resultType": "complete"},
    "structured content": {"content": TEXT, "structuredContent": {"n": 1, "list": [1, None]}},
    "a tool's error": {"content": TEXT, "isError": True, "resultType": "complete"},
    "with _meta": {"content": [], "_meta": {"io.example/x": 1}},
    "input_required": {"resultType": "input_required", "inputRequests": QUESTION, "requestState": "s1"},
    "input_required, state only": {"resultType": "input_required", "requestState": "s2"},
    "input_required with content": {
        "resultType": "input_required",
        "inputRequests": QUESTION,
        "content": TEXT,
    },
    "a task handle": {**TASK, "resultType": "task"},
    "a task handle, resultType dropped (2025-11-25)": TASK,
    "a task handle with content": {**TASK, "content": TEXT},
    "a result of another type": {"content": TEXT, "resultType": "something-new"},
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_each_answer_is_read_as_the_union_reads_it(shape: dict[str, Any]) -> None:
    read = CALL_RESULT.validate_python(shape, by_name=False)
    expected = UNION.validate_python(shape, by_name=False)
    assert type(read) is type(expected) and read == expected
    if isinstance(read, types.CallToolResult):  # and it reaches the browser the same
        assert to_json(read) == to_json(expected)


def test_a_result_with_structured_content_and_an_error_flag_keeps_both() -> None:
    read = CALL_RESULT.validate_python(SHAPES["structured content"] | {"isError": True}, by_name=False)
    assert to_json(read) == {
        "content": TEXT,
        "structuredContent": {"n": 1, "list": [1, None]},
        "isError": True,
    }


@pytest.mark.parametrize(
    ("shape", "named"),
    [
        ({"content": "hi"}, "content"),  # a plain result whose content is not a list
        ({"content": [{"type": "nope"}]}, "content.0"),
        ({"resultType": "input_required"}, "input_requests"),  # a question with nothing asked
        ({"resultType": "task", "taskId": "t"}, "status"),  # a task handle without its state
        ({"isError": False}, "content"),  # nothing a tool result needs
    ],
)
def test_a_bad_answer_is_refused_naming_what_is_wrong(shape: dict[str, Any], named: str) -> None:
    with pytest.raises(ValidationError) as refused:
        CALL_RESULT.validate_python(shape, by_name=False)
    assert named in str(refused.value)


def _response(result: dict[str, Any]) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=3, result=result))


def test_a_result_without_result_type_is_complete_and_one_with_it_keeps_its_own() -> None:
    item = completed(_response({"content": TEXT}))
    assert isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCResponse)
    assert item.message.result == {"content": TEXT, "resultType": "complete"}
    asked = completed(_response({"resultType": "input_required", "requestState": "s"}))
    assert isinstance(asked, SessionMessage) and isinstance(asked.message, types.JSONRPCResponse)
    assert asked.message.result == {"resultType": "input_required", "requestState": "s"}


def test_errors_notifications_and_failures_pass_unchanged() -> None:
    error = SessionMessage(
        types.JSONRPCError(jsonrpc="2.0", id=4, error=types.ErrorData(code=-32602, message="bad"))
    )
    note = SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/progress"))
    failure = ValueError("not JSON")
    for item in (error, note, failure):
        before = item.message.model_dump() if isinstance(item, SessionMessage) else None
        assert completed(item) is item
        if isinstance(item, SessionMessage):
            assert item.message.model_dump() == before
