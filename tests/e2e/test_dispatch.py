"""Dispatch through the real extension: the guards' exact texts, built-ins, output shapes (contract §5–6)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.support.browser import Extension

pytestmark = pytest.mark.e2e


def function_call(name: str, arguments: object, call_id: str = "call-1") -> dict[str, object]:
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}


@pytest.fixture
def mcp_tools_on(ext_with_host: Extension) -> Iterator[Extension]:
    assert ext_with_host.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
    yield ext_with_host
    ext_with_host.send({"type": "config/set", "patch": {"mcpTools": False}})


def test_an_unknown_tool_without_a_host_says_mcp_is_not_supported(ext_without_host: Extension) -> None:
    answer = ext_without_host.dispatch(function_call("hallucinated_tool", {}))
    assert answer == {
        "output": {
            "type": "function_call_output",
            "call_id": "call-1",
            "output": "MCP tools not supported in browser extension. Tool 'hallucinated_tool' not found.",
        },
        "success": False,
        "outcome": "failed",
    }


def test_an_unknown_tool_with_the_host_but_mcp_tools_off_says_disabled(ext_with_host: Extension) -> None:
    assert ext_with_host.send({"type": "status"})["host"] == "connected"
    assert ext_with_host.send({"type": "config/get"})["mcpTools"] is False
    answer = ext_with_host.dispatch(function_call("mcp__notes__add", {}))
    assert answer["output"]["output"] == "Tool 'mcp__notes__add' not available (mcpTools disabled in config)"
    assert answer["success"] is False


def test_an_unknown_tool_with_mcp_tools_on_is_an_unsupported_call(mcp_tools_on: Extension) -> None:
    answer = mcp_tools_on.dispatch(function_call("no_such_tool", {}))
    assert answer["output"]["output"] == "unsupported call: no_such_tool"
    assert answer["success"] is False


def test_update_plan_updates_the_plan_and_keeps_it_for_the_popup(ext_without_host: Extension) -> None:
    plan = {
        "explanation": "e2e",
        "plan": [{"step": "one", "status": "completed"}, {"step": "two", "status": "pending"}],
    }
    answer = ext_without_host.dispatch(function_call("update_plan", plan, "plan-1"))
    assert answer == {
        "output": {"type": "function_call_output", "call_id": "plan-1", "output": "Plan updated"},
        "success": True,
        "outcome": "done",
    }
    assert ext_without_host.send({"type": "plan"}) == plan


def test_update_plan_with_a_bad_status_names_the_field(ext_without_host: Extension) -> None:
    answer = ext_without_host.dispatch(
        function_call("update_plan", {"plan": [{"step": "x", "status": "done"}]})
    )
    assert answer["success"] is False
    assert "status" in answer["output"]["output"]


def test_resource_tools_without_a_host_answer_the_guard_with_their_own_name(
    ext_without_host: Extension,
) -> None:
    answer = ext_without_host.dispatch(function_call("list_mcp_resources", {}))
    assert answer["output"]["output"] == (
        "MCP tools not supported in browser extension. Tool 'list_mcp_resources' not found."
    )


def test_listing_resources_with_a_cursor_but_no_server_is_refused(mcp_tools_on: Extension) -> None:
    answer = mcp_tools_on.dispatch(function_call("list_mcp_resources", {"cursor": "abc"}))
    assert answer["output"]["output"] == "cursor can only be used when a server is specified"
    assert answer["success"] is False


def test_a_custom_tool_call_for_an_unknown_tool_gets_a_custom_output(ext_without_host: Extension) -> None:
    item = {"type": "custom_tool_call", "name": "apply_patch_x", "input": "*** Begin", "call_id": "cu-1"}
    answer = ext_without_host.dispatch(item)
    assert answer["output"]["type"] == "custom_tool_call_output"
    assert answer["output"]["call_id"] == "cu-1"
    assert answer["output"]["output"] == (
        "MCP tools not supported in browser extension. Tool 'apply_patch_x' not found."
    )
    assert answer["success"] is False


def test_a_local_shell_call_says_there_is_no_shell_in_a_browser(ext_without_host: Extension) -> None:
    item = {"type": "local_shell_call", "call_id": "sh-1", "action": {"type": "exec", "command": ["ls"]}}
    answer = ext_without_host.dispatch(item)
    assert answer["success"] is False
    assert "local shell" in answer["output"]["output"]


def test_tools_lists_builtins_and_browser_tools_with_schemas(ext_without_host: Extension) -> None:
    tools = {t["name"]: t for t in ext_without_host.send({"type": "tools"})["tools"]}
    assert tools["update_plan"]["source"] == "builtin"
    assert tools["browser_tab"]["source"] == "browser"
    assert tools["browser_tab"]["parameters"]["required"] == ["action"]
    assert not [t for t in tools.values() if t["source"] == "mcp"]
    assert "list_mcp_resources" not in tools  # no MCP path, so the resource tools are not offered


def test_a_bad_config_patch_is_refused_and_changes_nothing(ext_without_host: Extension) -> None:
    before = ext_without_host.send({"type": "config/get"})
    answer = ext_without_host.send({"type": "config/set", "patch": {"mcpTools": "yes please"}})
    assert answer["error"]["code"] == -32602 and "mcpTools" in answer["error"]["message"]
    assert ext_without_host.send({"type": "config/get"}) == before


def test_disabled_tools_are_not_offered_and_answer_as_unavailable(ext_without_host: Extension) -> None:
    ext_without_host.send({"type": "config/set", "patch": {"disabledTools": ["browser_storage"]}})
    try:
        names = [t["name"] for t in ext_without_host.send({"type": "tools"})["tools"]]
        assert "browser_storage" not in names
        answer = ext_without_host.dispatch(function_call("browser_storage", {"action": "keys"}))
        assert answer["success"] is False
        assert "browser_storage" in answer["output"]["output"]
    finally:
        ext_without_host.send({"type": "config/set", "patch": {"disabledTools": []}})


def test_config_survives_a_service_worker_restart(ext_without_host: Extension) -> None:
    ext_without_host.send({"type": "config/set", "patch": {"disabledTools": ["browser_dom"]}})
    try:
        ext_without_host.stop_service_worker()
        assert ext_without_host.send({"type": "config/get"})["disabledTools"] == ["browser_dom"]
    finally:
        ext_without_host.send({"type": "config/set", "patch": {"disabledTools": []}})


def test_history_records_each_dispatch(ext_without_host: Extension) -> None:
    ext_without_host.dispatch(function_call("update_plan", {"plan": []}, "hist-1"))
    entry = next(e for e in ext_without_host.send({"type": "history"}) if e["id"] == "hist-1")
    assert entry["status"] == "done"
    assert entry["name"] == "update_plan"
    assert entry["answer"]["success"] is True
