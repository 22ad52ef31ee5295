"""What an agent receives (contract §8, interface A): the core's answer as an MCP `CallToolResult`."""

from __future__ import annotations

import pytest

from core.agents.call_result import from_dispatch
from core.calls.outcome import of_success

pytestmark = pytest.mark.unit


def function_output(output: object, success: bool | None = True) -> dict[str, object]:
    return {
        "output": {"type": "function_call_output", "call_id": "c1", "output": output},
        "success": success,
        "outcome": of_success(success).value,
    }


def test_text_output_is_one_text_block() -> None:
    assert from_dispatch(function_output("Cart")).to_wire() == {
        "content": [{"type": "text", "text": "Cart"}],
        "isError": False,
    }


def test_content_items_become_text_and_image_blocks() -> None:
    items = [
        {"type": "input_text", "text": "Screenshot of tab 7"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0"},
    ]
    assert from_dispatch(function_output(items)).to_wire()["content"] == [
        {"type": "text", "text": "Screenshot of tab 7"},
        {"type": "image", "data": "iVBORw0", "mimeType": "image/png"},
    ]


def test_a_failed_output_is_an_error() -> None:
    assert from_dispatch(function_output("no such element", success=False)).to_wire() == {
        "content": [{"type": "text", "text": "no such element"}],
        "isError": True,
    }


def test_an_mcp_tools_result_passes_through_with_its_own_fields() -> None:
    result = {
        "content": [{"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}],
        "structuredContent": {"n": 1},
        "isError": False,
        "_meta": {"x": 1},
    }
    output = {"type": "mcp_tool_call_output", "call_id": "c1", "result": {"Ok": result}}
    assert from_dispatch({"output": output, "success": True, "outcome": "done"}).to_wire() == result


def test_an_mcp_tools_failure_is_an_error_with_its_text() -> None:
    output = {"type": "mcp_tool_call_output", "call_id": "c1", "result": {"Err": "server notes is down"}}
    assert from_dispatch({"output": output, "success": False, "outcome": "failed"}).to_wire() == {
        "content": [{"type": "text", "text": "server notes is down"}],
        "isError": True,
    }


def test_fatal_and_refusals_are_errors_saying_why() -> None:
    assert from_dispatch({"fatal": "boom", "outcome": "fatal"}).to_wire() == {
        "content": [{"type": "text", "text": "Fatal error: boom"}],
        "isError": True,
    }
    assert from_dispatch({"error": {"code": -32000, "message": "denied"}, "outcome": "denied"}).to_wire() == {
        "content": [{"type": "text", "text": "denied"}],
        "isError": True,
    }
