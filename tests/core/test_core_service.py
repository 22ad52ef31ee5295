"""The Service façade: runtime messages in, answers out (docs/architecture.md, contract §5)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import SOON, FakeBrowser, FakeHost, FakeServer, FakeTool, connect, dispatch, function_call

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.runtime.config import ToolsConfig
from core.runtime.facade import Service
from tests.core.fenced import block, fenced

pytestmark = pytest.mark.unit


def names(answer: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in answer["tools"]]


def notes_host() -> FakeHost:
    return FakeHost(
        {
            "notes": FakeServer(
                tools=[
                    FakeTool(
                        "add",
                        description="Add a note",
                        input_schema={"properties": {"text": {"type": "string"}, "tags": {"type": "array"}}},
                    )
                ]
            )
        }
    )


async def enabled(host: FakeHost) -> Service:
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host)
    return svc


# --- tools ------------------------------------------------------------------------------------------------


async def test_without_host_or_browser_only_update_plan_is_offered() -> None:
    svc = Service(emit=lambda event: None)
    assert names(await svc.handle({"type": "tools"})) == ["update_plan"]


async def test_browser_tools_are_offered_only_with_a_browser_capability() -> None:
    svc = Service(emit=lambda event: None, browser=FakeBrowser())
    tools = (await svc.handle({"type": "tools"}))["tools"]
    assert names({"tools": tools}) == [
        "update_plan",
        "browser_tab",
        "browser_navigation",
        "browser_page",
        "browser_dom",
        "browser_devtools",
        "browser_screenshot",
        "browser_storage",
    ]
    tab = tools[1]
    assert (tab["source"], tab["supportsParallel"]) == ("browser", False)
    assert tab["parameters"]["required"] == ["action"]
    assert tab["parameters"]["properties"]["action"]["enum"] == [
        "query",
        "create",
        "close",
        "activate",
        "update",
    ]
    assert tab["parameters"]["additionalProperties"] is False


async def test_a_connected_host_with_mcp_tools_off_adds_nothing_and_is_not_asked() -> None:
    host = notes_host()
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host, mcp_tools=False)
    assert names(await svc.handle({"type": "tools"})) == ["update_plan"]
    assert host.requests == []


async def test_with_mcp_usable_resource_tools_and_mcp_tools_are_offered_with_sanitised_schemas() -> None:
    svc = await enabled(notes_host())
    tools = (await svc.handle({"type": "tools"}))["tools"]
    assert names({"tools": tools}) == [
        "update_plan",
        "list_mcp_resources",
        "list_mcp_resource_templates",
        "read_mcp_resource",
        "mcp__notes__add",
    ]
    assert tools[-1] == {
        "name": "mcp__notes__add",
        "source": "mcp",
        "description": "Add a note",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        },
        "supportsParallel": False,
        "server": "notes",
        "label": "mcp__notes__add",
        "marks": [],
        "needsYes": False,
    }


async def test_the_mcp_tool_table_is_fetched_lazily_once() -> None:
    host = notes_host()
    svc = await enabled(host)
    assert host.requests == []
    await svc.handle({"type": "tools"})
    await svc.handle(dispatch(function_call("mcp__notes__add", '{"text":"x"}')))
    assert host.methods() == ["tools/list", "tools/call"]


async def test_a_host_servers_notification_refreshes_the_table_at_once() -> None:
    host = notes_host()
    svc = await enabled(host)
    await svc.handle({"type": "tools"})
    host.servers["todo"] = FakeServer(tools=[FakeTool("done")])
    assert await svc.handle({"type": "host/servers", "servers": []}) == {"ok": True}
    assert host.methods() == ["tools/list", "tools/list"]
    assert "mcp__todo__done" in names(await svc.handle({"type": "tools"}))


async def test_a_host_that_goes_away_takes_its_tools_with_it() -> None:
    host = notes_host()
    svc = await enabled(host)
    assert "mcp__notes__add" in names(await svc.handle({"type": "tools"}))
    host.connected = False
    assert await svc.handle({"type": "host/state", "connected": False, "servers": []}) == {"ok": True}
    assert names(await svc.handle({"type": "tools"})) == ["update_plan"]
    answer = await svc.handle(dispatch(function_call("mcp__notes__add")))
    assert (
        answer["output"]["output"]
        == "MCP tools not supported in browser extension. Tool 'mcp__notes__add' not found."
    )


async def test_a_new_host_is_asked_for_its_own_tools() -> None:
    host = notes_host()
    svc = await enabled(host)
    await svc.handle({"type": "tools"})
    host.servers = {"todo": FakeServer(tools=[FakeTool("done")])}
    await svc.handle(host.state_message())
    assert names(await svc.handle({"type": "tools"}))[-1] == "mcp__todo__done"


async def test_a_failing_tools_list_is_reported_and_retried() -> None:
    class FailingOnce(FakeHost):
        calls = 0

        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            FailingOnce.calls += 1
            if FailingOnce.calls == 1:
                raise McpRequestError(McpErrorCode.SERVER_UNAVAILABLE, "connection closed")
            return await super().request(method, params, timeout_ms=timeout_ms, call_id=call_id)

    svc = await enabled(FailingOnce(notes_host().servers))
    first = await svc.handle({"type": "tools"})
    assert first["mcpError"] == "tools/list failed: connection closed"
    assert "mcp__notes__add" not in names(first)
    second = await svc.handle({"type": "tools"})
    assert "mcpError" not in second
    assert "mcp__notes__add" in names(second)


# --- config -----------------------------------------------------------------------------------------------


def config(**changes: Any) -> dict[str, Any]:
    """The whole config as `config/get` answers it: the defaults with `changes`."""
    return {**ToolsConfig().to_wire(), **changes}


async def test_the_defaults_keep_mcp_tools_and_the_agent_gateway_off() -> None:
    svc = Service(emit=lambda event: None)
    answer = await svc.handle({"type": "config/get"})
    assert (answer["mcpTools"], answer["gateway"], answer["gatewayMcp"]) == (False, False, False)
    assert (answer["disabledTools"], answer["gatewayTrusted"], answer["approvalTimeoutSec"]) == ([], [], 120)


async def test_config_set_applies_a_valid_patch_and_returns_the_new_config() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle({"type": "config/set", "patch": {"disabledTools": ["browser_tab"]}}) == config(
        disabledTools=["browser_tab"]
    )
    assert await svc.handle({"type": "config/get"}) == config(disabledTools=["browser_tab"])


@pytest.mark.parametrize(
    ("patch", "error"),
    [
        ({"mcpTools": "yes"}, "invalid config: mcpTools: Input should be a valid boolean"),
        ({"disabledTools": "update_plan"}, "invalid config: disabledTools: Input should be a valid tuple"),
        ({"disabledTools": [1]}, "invalid config: disabledTools.0: Input should be a valid string"),
        ({"mcpTools": True, "colour": "red"}, "invalid config: colour: Extra inputs are not permitted"),
        (["mcpTools"], "config/set: patch: Input should be a valid dictionary"),
        ({"approvalTimeoutSec": 0}, "invalid config: approvalTimeoutSec: Input should be greater than 0"),
        ({"gateway": "on"}, "invalid config: gateway: Input should be a valid boolean"),
    ],
)
async def test_an_invalid_patch_names_the_bad_key_and_changes_nothing(patch: Any, error: str) -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle({"type": "config/set", "patch": patch}) == {
        "error": {"code": -32602, "message": error}
    }
    assert await svc.handle({"type": "config/get"}) == config()


async def test_config_load_replaces_the_whole_config_and_refuses_an_invalid_one() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle({"type": "config/load", "config": {"mcpTools": True}}) == config(mcpTools=True)
    assert await svc.handle({"type": "config/load", "config": {"mcpTools": 1}}) == {
        "error": {"code": -32602, "message": "invalid config: mcpTools: Input should be a valid boolean"}
    }
    assert (await svc.handle({"type": "config/get"}))["mcpTools"] is True


# --- dispatch ---------------------------------------------------------------------------------------------


async def test_update_plan_answers_plan_updated_emits_the_plan_and_keeps_it() -> None:
    events: list[dict[str, Any]] = []
    svc = Service(emit=events.append)
    arguments = (
        '{"explanation":"first things first","plan":'
        '[{"step":"read","status":"completed"},{"step":"write","status":"in_progress"}]}'
    )
    answer = await svc.handle(dispatch(function_call("update_plan", arguments, "p1")))
    assert answer == {
        "output": {"type": "function_call_output", "call_id": "p1", "output": "Plan updated"},
        "success": True,
        "outcome": "done",
    }
    plan = {
        "explanation": "first things first",
        "plan": [{"step": "read", "status": "completed"}, {"step": "write", "status": "in_progress"}],
    }
    assert events == [{"type": "PlanUpdate", **plan}]
    assert await svc.handle({"type": "plan"}) == plan


async def test_before_any_update_the_plan_is_empty() -> None:
    assert await Service(emit=lambda event: None).handle({"type": "plan"}) == {
        "explanation": None,
        "plan": [],
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            '{"plan":[{"step":"x","status":"done"}]}',
            "plan.0.status: Input should be 'pending', 'in_progress' or 'completed'",
        ),
        ('{"explanation":"no plan"}', "plan: Field required"),
        ("", "EOF while parsing a value at line 1 column 0"),
    ],
)
async def test_bad_update_plan_arguments_are_answered_and_keep_the_old_plan(
    arguments: str, message: str
) -> None:
    events: list[dict[str, Any]] = []
    svc = Service(emit=events.append)
    answer = await svc.handle(dispatch(function_call("update_plan", arguments)))
    assert answer["output"]["output"] == f"failed to parse function arguments: {message}"
    assert answer["success"] is False
    assert events == []
    assert (await svc.handle({"type": "plan"}))["plan"] == []


async def test_a_browser_tool_call_is_validated_and_executed_by_the_capability() -> None:
    # Chrome's new tab has not committed its page yet: its URL is the one it is going to.
    created = {"id": 7, "url": "", "pendingUrl": "https://example.com/", "title": "", "status": "loading"}
    browser = FakeBrowser({"browser_tab": created})
    svc = Service(emit=lambda event: None, browser=browser)
    answer = await svc.handle(
        dispatch(
            function_call(
                "browser_tab", '{"action":"create","url":"https://example.com/","active":true}', "b1"
            )
        )
    )
    answer["output"]["output"] = fenced(answer["output"]["output"])  # the tab's URL is page text
    assert answer == {
        "output": {
            "type": "function_call_output",
            "call_id": "b1",
            "output": block(
                '{"id":7,"url":"https://example.com/","pendingUrl":"https://example.com/","title":"",'
                '"status":"loading"}'
            ),
        },
        "success": True,
        "outcome": "done",
    }
    assert browser.calls == [
        (
            "browser_tab",
            {"action": "create", "options": {"url": "https://example.com/", "active": True}},
            30_000,
        )
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"action":"close"}', "tabId is required when action is 'close'"),
        ('{"action":"update","tabId":3}', "update needs at least one of url, active, pinned"),
        ('{"action":"reload"}', "action: Input should be 'query', 'create', 'close', 'activate' or 'update'"),
        ('{"action":"query","colour":"red"}', "colour: Extra inputs are not permitted"),
    ],
)
async def test_invalid_browser_arguments_go_back_to_the_model_and_never_reach_the_browser(
    arguments: str, message: str
) -> None:
    browser = FakeBrowser({"browser_tab": []})
    svc = Service(emit=lambda event: None, browser=browser)
    answer = await svc.handle(dispatch(function_call("browser_tab", arguments)))
    assert answer["output"]["output"] == f"failed to parse function arguments: {message}"
    assert answer["success"] is False
    assert browser.calls == []


async def test_a_failing_browser_tool_answers_its_error_to_the_model() -> None:
    svc = Service(emit=lambda event: None, browser=FakeBrowser(error="No tab with id: 99."))
    answer = await svc.handle(dispatch(function_call("browser_tab", '{"action":"activate","tabId":99}')))
    assert (answer["output"]["output"], answer["success"]) == (
        "browser_tab activate: No tab with id: 99.",
        False,
    )


async def test_browser_tools_are_unknown_without_a_browser_capability() -> None:
    svc = Service(emit=lambda event: None)
    answer = await svc.handle(dispatch(function_call("browser_tab", '{"action":"query"}')))
    assert (
        answer["output"]["output"]
        == "MCP tools not supported in browser extension. Tool 'browser_tab' not found."
    )


async def test_a_local_shell_call_says_there_is_no_shell_in_a_browser_extension() -> None:
    svc = Service(emit=lambda event: None)
    answer = await svc.handle(
        dispatch({"type": "local_shell_call", "call_id": "s1", "action": {"type": "exec", "command": ["ls"]}})
    )
    assert answer == {
        "output": {
            "type": "function_call_output",
            "call_id": "s1",
            "output": (
                "local shell is not available in a browser extension: there is no shell to run commands in"
            ),
        },
        "success": False,
        "outcome": "failed",
    }
    assert "local_shell" not in names(await svc.handle({"type": "tools"}))


async def test_an_item_that_is_not_a_tool_call_is_answered_with_an_error_naming_it() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle(dispatch({"type": "reasoning", "summary": []})) == {
        "error": {
            "code": -32602,
            "message": "item type 'reasoning' is not a tool call "
            "(expected one of: function_call, custom_tool_call, local_shell_call)",
        },
        "outcome": "rejected",
    }


async def test_an_invalid_item_is_answered_with_an_error_naming_the_field() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle(dispatch({"type": "function_call", "name": "update_plan", "call_id": "c"})) == {
        "error": {"code": -32602, "message": "invalid function_call item: arguments: Field required"},
        "outcome": "rejected",
    }
    assert await svc.handle({"type": "dispatch"}) == {
        "error": {"code": -32602, "message": "item must be an object"},
        "outcome": "rejected",
    }


@pytest.mark.parametrize("turn", [7, ["t"], {"id": "t"}, True])
async def test_a_turn_that_is_not_a_string_is_a_malformed_request(turn: Any) -> None:
    svc = Service(emit=lambda event: None)
    message = {**dispatch(function_call("update_plan", '{"plan":[]}')), "turn": turn}
    answer = await svc.handle(message)
    assert answer["error"]["code"] == -32602 and answer["error"]["message"].startswith("dispatch: turn: ")
    assert answer["outcome"] == "rejected"


async def test_a_fatal_error_is_answered_as_fatal() -> None:
    svc = Service(emit=lambda event: None)
    answer = await svc.handle(
        dispatch({"type": "custom_tool_call", "name": "update_plan", "input": "x", "call_id": "c"})
    )
    assert answer == {"fatal": "tool update_plan invoked with incompatible payload", "outcome": "fatal"}


async def test_an_unknown_message_type_is_answered_with_an_error() -> None:
    svc = Service(emit=lambda event: None)
    assert await svc.handle({"type": "reboot"}) == {
        "error": {"code": -32601, "message": "unknown message type: 'reboot'"}
    }
    assert await svc.handle({}) == {"error": {"code": -32601, "message": "unknown message type: None"}}


class HeldToolsList(FakeHost):
    """Holds `tools/list` open until released, to race it against other messages."""

    def __init__(self, servers: dict[str, FakeServer]) -> None:
        super().__init__(servers)
        self.listing = asyncio.Event()
        self.release = asyncio.Event()

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        # The answer is the host's state when asked: a host replaced meanwhile answered for its old servers.
        result = await super().request(method, params, timeout_ms=timeout_ms, call_id=call_id)
        if method == "tools/list":
            self.listing.set()
            await self.release.wait()
        return result


async def test_concurrent_requests_share_one_tools_list() -> None:
    host = HeldToolsList(notes_host().servers)
    svc = await enabled(host)
    first = asyncio.create_task(svc.handle({"type": "tools"}))
    second = asyncio.create_task(svc.handle(dispatch(function_call("mcp__notes__add"))))
    await asyncio.wait_for(host.listing.wait(), SOON)
    host.release.set()
    tools, call = await asyncio.gather(first, second)
    assert "mcp__notes__add" in names(tools)
    assert call["success"] is True
    assert host.methods() == ["tools/list", "tools/call"]


async def test_a_tools_list_answer_from_a_host_that_was_replaced_meanwhile_is_dropped() -> None:
    host = HeldToolsList(notes_host().servers)
    svc = await enabled(host)
    stale = asyncio.create_task(svc.handle({"type": "tools"}))
    await asyncio.wait_for(host.listing.wait(), SOON)
    host.servers = {"todo": FakeServer(tools=[FakeTool("done")])}
    await svc.handle(host.state_message())
    host.release.set()
    await stale
    assert names(await svc.handle({"type": "tools"}))[-1] == "mcp__todo__done"
    answer = await svc.handle(dispatch(function_call("mcp__notes__add")))
    assert answer["output"]["output"] == "unsupported call: mcp__notes__add"


async def test_a_call_racing_a_servers_change_fetches_the_tool_table_again_and_succeeds() -> None:
    # Right after a (re)connect the host reports server status changes while the first tools/list runs.
    host = HeldToolsList(notes_host().servers)
    svc = await enabled(host)
    call = asyncio.create_task(svc.handle(dispatch(function_call("mcp__notes__add"))))
    await asyncio.wait_for(host.listing.wait(), SOON)
    changed = asyncio.create_task(
        svc.handle({"type": "host/servers", "servers": [{"name": "notes", "status": "ready"}]})
    )
    await asyncio.sleep(0)
    host.release.set()
    answer, _ = await asyncio.gather(call, changed)
    assert answer["success"] is True
    assert host.methods() == ["tools/list", "tools/list", "tools/call"]
