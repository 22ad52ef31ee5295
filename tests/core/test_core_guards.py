"""Lookup order and the MCP guard (spec 003, contract §6): unknown names never crash nor reach the host."""

from __future__ import annotations

import time
from typing import Any

import pytest
from core_fakes import (
    ONE_TAB,
    ONE_TAB_LISTED,
    FakeBrowser,
    FakeHost,
    FakeServer,
    FakeTool,
    connect,
    custom_call,
    dispatch,
    function_call,
)
from pydantic import BaseModel

from core.browser.tool_spec import BrowserToolSpec
from core.browser.tool_table import BrowserToolRegistry
from core.calls.items import parse_response_item
from core.host_link.mcp_tools import build_mcp_tool_table
from core.host_link.servers import ServerBoard
from core.runtime.catalog import build_registry
from core.runtime.config import ToolsConfig
from core.runtime.facade import Service
from core.tools.handlers.plan import PlanBoard
from core.tools.parallel import TurnGates
from core.tools.router import handle_response_item
from tests.core.fenced import block, fenced

pytestmark = pytest.mark.unit

NOT_SUPPORTED = "MCP tools not supported in browser extension. Tool '{}' not found."
MCP_DISABLED = "Tool '{}' not available (mcpTools disabled in config)"
PLAN_ARGS = '{"plan":[{"step":"a","status":"pending"}]}'


def notes_host() -> FakeHost:
    return FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})


async def service(*, host: FakeHost | None = None, mcp_tools: bool = False, **config: Any) -> Service:
    svc = Service(emit=lambda event: None, browser=FakeBrowser({"browser_tab": ONE_TAB}), host=host)
    if host is not None:
        await connect(svc, host, mcp_tools=mcp_tools)
    await svc.handle({"type": "config/set", "patch": {"mcpTools": mcp_tools, **config}})
    return svc


async def output_of(svc: Service, item: dict[str, Any]) -> tuple[Any, Any]:
    answer = await svc.handle(dispatch(item))
    return answer["output"]["output"], answer["success"]


# --- the three guard messages ---------------------------------------------------------------------------


async def test_a_hallucinated_name_without_a_host_says_mcp_is_not_supported_in_the_extension() -> None:
    svc = await service()
    assert await output_of(svc, function_call("made_up_tool")) == (
        NOT_SUPPORTED.format("made_up_tool"),
        False,
    )


async def test_a_hallucinated_name_with_a_host_and_mcp_tools_off_says_mcp_tools_are_disabled() -> None:
    host = notes_host()
    svc = await service(host=host)
    assert await output_of(svc, function_call("made_up_tool")) == (MCP_DISABLED.format("made_up_tool"), False)
    assert host.requests == []


async def test_a_hallucinated_name_with_mcp_usable_is_an_unsupported_call_and_never_reaches_the_host() -> (
    None
):
    host = notes_host()
    svc = await service(host=host, mcp_tools=True)
    assert await output_of(svc, function_call("made_up_tool")) == ("unsupported call: made_up_tool", False)
    assert host.methods() == ["tools/list"]


async def test_mcp_tools_on_but_no_host_checks_the_capability_first() -> None:
    svc = await service(mcp_tools=True)
    assert await output_of(svc, function_call("mcp__notes__add")) == (
        NOT_SUPPORTED.format("mcp__notes__add"),
        False,
    )


async def test_a_known_mcp_tool_with_mcp_tools_off_is_not_available_and_the_host_is_not_called() -> None:
    host = notes_host()
    svc = await service(host=host)
    assert await output_of(svc, function_call("mcp__notes__add")) == (
        MCP_DISABLED.format("mcp__notes__add"),
        False,
    )
    assert host.requests == []


async def test_mcp_tools_are_off_by_default() -> None:
    svc = Service(emit=lambda event: None)
    assert (await svc.handle({"type": "config/get"}))["mcpTools"] is False


async def test_custom_calls_get_the_guard_messages_as_custom_outputs() -> None:
    svc = await service()
    answer = await svc.handle(dispatch(custom_call("made_up_tool", call_id="c7")))
    assert answer == {
        "output": {
            "type": "custom_tool_call_output",
            "call_id": "c7",
            "output": NOT_SUPPORTED.format("made_up_tool"),
        },
        "success": False,
        "outcome": "failed",
    }


async def test_an_unknown_custom_tool_with_mcp_usable_is_an_unsupported_custom_tool_call() -> None:
    svc = await service(host=notes_host(), mcp_tools=True)
    assert await output_of(svc, custom_call("made_up_tool")) == (
        "unsupported custom tool call: made_up_tool",
        False,
    )


@pytest.mark.parametrize("name", ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"])
async def test_resource_tools_without_a_host_answer_the_not_supported_message_with_their_own_name(
    name: str,
) -> None:
    svc = await service()
    assert await output_of(svc, function_call(name, '{"server":"notes","uri":"memo://1"}')) == (
        NOT_SUPPORTED.format(name),
        False,
    )


@pytest.mark.parametrize("name", ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"])
async def test_resource_tools_with_mcp_tools_off_answer_the_disabled_message_with_their_own_name(
    name: str,
) -> None:
    host = notes_host()
    svc = await service(host=host)
    assert await output_of(svc, function_call(name)) == (MCP_DISABLED.format(name), False)
    assert host.requests == []


# --- disabledTools ------------------------------------------------------------------------------------


async def test_a_disabled_built_in_is_not_offered_and_answers_not_available() -> None:
    svc = await service(disabledTools=["update_plan"])
    names = [tool["name"] for tool in (await svc.handle({"type": "tools"}))["tools"]]
    assert "update_plan" not in names
    assert await output_of(svc, function_call("update_plan", PLAN_ARGS)) == (
        "Tool 'update_plan' not available (disabled in config)",
        False,
    )
    assert (await svc.handle({"type": "plan"}))["plan"] == []


async def test_a_disabled_mcp_tool_is_not_offered_and_never_reaches_the_host() -> None:
    host = notes_host()
    svc = await service(host=host, mcp_tools=True, disabledTools=["mcp__notes__add"])
    names = [tool["name"] for tool in (await svc.handle({"type": "tools"}))["tools"]]
    assert "mcp__notes__add" not in names
    assert await output_of(svc, function_call("mcp__notes__add")) == (
        "Tool 'mcp__notes__add' not available (disabled in config)",
        False,
    )
    assert "tools/call" not in host.methods()


# --- lookup order -------------------------------------------------------------------------------------


class Empty(BaseModel):
    pass


def registry_with_browser_tools(*names: str, host: FakeHost) -> Any:
    browser_tools = BrowserToolRegistry(
        BrowserToolSpec(name, "shadowing tool", Empty, supports_parallel=False) for name in names
    )
    table = build_mcp_tool_table({"tools": [{"server": "notes", "name": "add", "inputSchema": {}}]})
    return build_registry(
        emit=lambda event: None,
        plan=PlanBoard(),
        gates=TurnGates(),
        servers=ServerBoard(),
        config=ToolsConfig(mcpTools=True),
        mcp=host,
        mcp_table=table,
        browser=FakeBrowser({name: f"browser answered {name}" for name in names}),
        browser_tools=browser_tools,
    )


async def test_built_in_tools_are_looked_up_before_browser_tools() -> None:
    registry = registry_with_browser_tools("update_plan", host=notes_host())
    answer = await handle_response_item(
        parse_response_item(function_call("update_plan", PLAN_ARGS)), registry
    )
    assert answer.to_wire()["output"] == "Plan updated"


async def test_browser_tools_are_looked_up_before_mcp_tools() -> None:
    host = notes_host()
    registry = registry_with_browser_tools("mcp__notes__add", host=host)
    answer = await handle_response_item(parse_response_item(function_call("mcp__notes__add")), registry)
    assert answer.to_wire()["output"] == "browser answered mcp__notes__add"
    assert host.requests == []


async def test_a_browser_tool_runs_when_no_host_is_connected() -> None:
    svc = await service()
    text, success = await output_of(svc, function_call("browser_tab", '{"action":"query"}'))
    assert (fenced(text), success) == (block(ONE_TAB_LISTED), True)


async def test_an_unknown_name_is_answered_well_within_the_lookup_budget() -> None:
    # spec 003: lookup < 10 ms, error generation < 1 ms; a whole guarded dispatch stays far below that.
    svc = await service()
    rounds = 50
    started = time.perf_counter()
    for _ in range(rounds):
        await svc.handle(dispatch(function_call("made_up_tool")))
    assert (time.perf_counter() - started) / rounds < 0.010
