"""Model items in, output items out: the wire shapes of contract §5."""

from __future__ import annotations

import pytest

from core.calls.items import (
    CallToolResult,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    FunctionCallOutputPayload,
    InputImage,
    InputText,
    ItemError,
    LocalShellCallItem,
    McpToolCallOutputItem,
    parse_response_item,
)

pytestmark = pytest.mark.unit


def test_a_function_call_item_is_read_with_its_extra_fields_ignored() -> None:
    item = parse_response_item(
        {
            "type": "function_call",
            "name": "f",
            "arguments": "{}",
            "call_id": "c",
            "id": "fc_1",
            "status": "done",
        }
    )
    assert item == FunctionCallItem(type="function_call", name="f", arguments="{}", call_id="c")


def test_a_local_shell_call_needs_neither_id_nor_call_id_to_be_read() -> None:
    item = parse_response_item({"type": "local_shell_call", "action": {"type": "exec", "command": ["ls"]}})
    assert isinstance(item, LocalShellCallItem)
    assert (item.id, item.call_id, item.action.command) == (None, None, ["ls"])


def test_an_item_that_is_no_tool_call_is_refused_naming_its_type() -> None:
    with pytest.raises(ItemError) as raised:
        parse_response_item({"type": "message", "role": "assistant"})
    assert str(raised.value) == (
        "item type 'message' is not a tool call "
        "(expected one of: function_call, custom_tool_call, local_shell_call)"
    )


def test_an_item_without_a_type_is_refused() -> None:
    with pytest.raises(ItemError, match=r"^item type None is not a tool call"):
        parse_response_item({"name": "f"})


def test_an_item_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ItemError, match=r"^item must be an object$"):
        parse_response_item(["function_call"])


def test_an_invalid_item_is_refused_naming_the_bad_fields() -> None:
    with pytest.raises(ItemError) as raised:
        parse_response_item({"type": "function_call", "name": "f", "arguments": {"a": 1}})
    assert str(raised.value) == (
        "invalid function_call item: arguments: Input should be a valid string; call_id: Field required"
    )


def test_an_invalid_local_shell_action_is_refused_naming_the_nested_field() -> None:
    with pytest.raises(ItemError) as raised:
        parse_response_item({"type": "local_shell_call", "call_id": "c", "action": {"type": "exec"}})
    assert str(raised.value) == "invalid local_shell_call item: action.command: Field required"


def test_function_output_without_content_items_is_a_plain_string_on_the_wire() -> None:
    item = FunctionCallOutputItem(
        call_id="c", output=FunctionCallOutputPayload(content="done", success=False)
    )
    assert item.to_wire() == {"type": "function_call_output", "call_id": "c", "output": "done"}
    assert item.success is False


def test_function_output_with_content_items_is_the_list_of_items_on_the_wire() -> None:
    payload = FunctionCallOutputPayload(
        content="ignored",
        content_items=(InputText(text="hi"), InputImage(image_url="data:image/png;base64,AA==")),
        success=True,
    )
    item = FunctionCallOutputItem(call_id="c", output=payload)
    assert item.to_wire() == {
        "type": "function_call_output",
        "call_id": "c",
        "output": [
            {"type": "input_text", "text": "hi"},
            {"type": "input_image", "image_url": "data:image/png;base64,AA=="},
        ],
    }


def test_an_empty_content_item_list_still_serialises_as_the_string() -> None:
    item = FunctionCallOutputItem(
        call_id="c", output=FunctionCallOutputPayload(content="x", content_items=())
    )
    assert item.to_wire()["output"] == "x"


def test_custom_output_is_a_string_and_keeps_success_off_the_wire() -> None:
    item = CustomToolCallOutputItem(call_id="c", output="nope", success=False)
    assert item.to_wire() == {"type": "custom_tool_call_output", "call_id": "c", "output": "nope"}


def test_mcp_output_ok_carries_the_call_tool_result_as_given() -> None:
    result = CallToolResult.model_validate(
        {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 1}, "_meta": {"k": "v"}}
    )
    item = McpToolCallOutputItem(call_id="c", result=result)
    assert item.to_wire() == {
        "type": "mcp_tool_call_output",
        "call_id": "c",
        "result": {
            "Ok": {
                "content": [{"type": "text", "text": "x"}],
                "structuredContent": {"n": 1},
                "_meta": {"k": "v"},
            }
        },
    }
    assert item.success is True


def test_mcp_output_success_comes_from_is_error_not_from_having_a_result() -> None:
    result = CallToolResult.model_validate({"content": [], "isError": True})
    assert McpToolCallOutputItem(call_id="c", result=result).success is False


def test_mcp_output_err_carries_the_message() -> None:
    item = McpToolCallOutputItem(call_id="c", result="tool call error: boom")
    assert item.to_wire() == {
        "type": "mcp_tool_call_output",
        "call_id": "c",
        "result": {"Err": "tool call error: boom"},
    }
    assert item.success is False
