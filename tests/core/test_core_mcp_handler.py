"""MCP tool calls (spec 000, notes b3): dual output, events, argument errors, timeouts, cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import (
    SOON,
    FakeHost,
    FakeServer,
    FakeTool,
    Gate,
    blocking_tool,
    connect,
    dispatch,
    function_call,
    text_result,
)

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.calls.errors import RespondToModel
from core.calls.items import (
    CallToolResult,
)
from core.calls.output import FunctionOutput, McpOutput, ToolOutput
from core.calls.payload import FunctionPayload, McpPayload, ToolCall
from core.host_link.servers import ServerBoard, parse_statuses
from core.runtime.facade import Service
from core.tools.handlers.mcp import McpHandler, McpToolCall

pytestmark = pytest.mark.unit


async def figma_service(tool: FakeTool) -> tuple[Service, FakeHost, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    host = FakeHost({"figma": FakeServer(tools=[tool])})
    svc = Service(emit=events.append, host=host)
    await connect(svc, host)
    return svc, host, events


def without_duration(event: dict[str, Any]) -> dict[str, Any]:
    assert isinstance(event.get("duration_ms"), int)
    return {key: value for key, value in event.items() if key != "duration_ms"}


async def test_standard_mcp_tool_call_success_returns_the_call_tool_result_as_mcp_output() -> None:
    async def list_files(arguments: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "a.fig"}], "structuredContent": {"files": ["a.fig"]}}

    svc, _, _ = await figma_service(FakeTool("list_files", list_files))
    answer = await svc.handle(dispatch(function_call("mcp__figma__list_files", '{"project":"123"}', "c1")))
    assert answer == {
        "output": {
            "type": "mcp_tool_call_output",
            "call_id": "c1",
            "result": {
                "Ok": {
                    "content": [{"type": "text", "text": "a.fig"}],
                    "structuredContent": {"files": ["a.fig"]},
                }
            },
        },
        "success": True,
        "outcome": "done",
    }


async def test_the_host_gets_tools_call_with_server_tool_arguments_and_the_call_id() -> None:
    svc, host, _ = await figma_service(FakeTool("list_files"))
    await svc.handle(dispatch(function_call("mcp__figma__list_files", '{"project":"123"}', "c1")))
    request = host.requests[-1]
    assert (request.method, request.call_id) == ("tools/call", "c1")
    assert request.params == {
        "server": "figma",
        "tool": "list_files",
        "arguments": {"project": "123"},
    }  # no timeoutMs: the host applies the server's configured tool_timeout_sec


async def test_empty_arguments_are_sent_as_no_arguments() -> None:
    svc, host, events = await figma_service(FakeTool("list_files"))
    await svc.handle(dispatch(function_call("mcp__figma__list_files", "  \n", "c1")))
    assert "arguments" not in host.requests[-1].params
    assert events[0]["invocation"] == {"server": "figma", "tool": "list_files", "arguments": None}


async def test_a_result_with_is_error_true_is_an_unsuccessful_ok_result() -> None:
    async def failing(arguments: Any) -> dict[str, Any]:
        return text_result("file not found", is_error=True)

    svc, _, _ = await figma_service(FakeTool("list_files", failing))
    answer = await svc.handle(dispatch(function_call("mcp__figma__list_files")))
    assert answer["output"]["result"] == {"Ok": text_result("file not found", is_error=True)}
    assert answer["success"] is False


async def test_begin_and_end_events_carry_the_invocation_duration_and_result() -> None:
    svc, _, events = await figma_service(FakeTool("list_files"))
    await svc.handle(dispatch(function_call("mcp__figma__list_files", '{"project":"123"}', "c1")))
    invocation = {"server": "figma", "tool": "list_files", "arguments": {"project": "123"}}
    assert events[0] == {"type": "McpToolCallBegin", "call_id": "c1", "invocation": invocation}
    assert without_duration(events[1]) == {
        "type": "McpToolCallEnd",
        "call_id": "c1",
        "invocation": invocation,
        "result": {"Ok": text_result('echo:{"project": "123"}')},
    }
    assert len(events) == 2


async def test_downstream_mcp_error_is_an_err_result_the_model_sees() -> None:
    async def times_out(arguments: Any) -> dict[str, Any]:
        raise McpRequestError(McpErrorCode.TIMED_OUT, "timeout")

    svc, _, events = await figma_service(FakeTool("list_files", times_out))
    answer = await svc.handle(dispatch(function_call("mcp__figma__list_files", "{}", "c1")))
    assert answer == {
        "output": {
            "type": "mcp_tool_call_output",
            "call_id": "c1",
            "result": {"Err": "tool call error: timeout"},
        },
        "success": False,
        "outcome": "failed",
    }
    assert events[1]["result"] == {"Err": "tool call error: timeout"}


async def test_invalid_json_arguments_answer_err_without_events_or_a_host_call() -> None:
    svc, host, events = await figma_service(FakeTool("list_files"))
    answer = await svc.handle(dispatch(function_call("mcp__figma__list_files", "{'project':1}", "c1")))
    assert answer == {
        "output": {
            "type": "function_call_output",
            "call_id": "c1",
            "output": "err: key must be a string at line 1 column 2",
        },
        "success": False,
        "outcome": "failed",
    }
    assert events == []
    assert "tools/call" not in host.methods()


async def test_a_host_answer_that_is_not_a_call_tool_result_is_an_err_result() -> None:
    async def broken(arguments: Any) -> Any:
        return {"text": "no content list"}

    svc, _, _ = await figma_service(FakeTool("list_files", broken))
    answer = await svc.handle(dispatch(function_call("mcp__figma__list_files")))
    assert answer["output"]["result"] == {
        "Err": "tool call error: invalid CallToolResult from the host: content: Field required"
    }


# --- the handler's own mapping (codex handlers/mcp.rs) ------------------------------------------------


class ScriptedCaller:
    """Stands in for `handle_mcp_tool_call` to return a chosen output."""

    def __init__(self, output: ToolOutput) -> None:
        self.output = output

    async def __call__(self, call_id: str, server: str, tool: str, raw_arguments: str) -> ToolOutput:
        return self.output


MCP_CALL = ToolCall("mcp__figma__list_files", "c1", McpPayload("figma", "list_files", "{}"))


@pytest.mark.parametrize(
    "output",
    [McpOutput(CallToolResult.model_validate(text_result("ok"))), FunctionOutput("err: bad", success=False)],
)
async def test_the_callers_output_is_the_handlers_own_object_not_a_rebuilt_copy(output: ToolOutput) -> None:
    handler = McpHandler(ScriptedCaller(output))
    assert await handler.handle(MCP_CALL) is output


async def test_a_non_mcp_payload_is_rejected_even_if_the_name_matches() -> None:
    handler = McpHandler(ScriptedCaller(FunctionOutput("?")))
    with pytest.raises(RespondToModel, match=r"^mcp handler received unsupported payload$"):
        await handler.handle(ToolCall("mcp__figma__list_files", "c1", FunctionPayload("{}")))


async def test_a_custom_call_to_an_mcp_tool_is_a_fatal_incompatible_payload() -> None:
    svc, host, _ = await figma_service(FakeTool("list_files"))
    answer = await svc.handle(
        dispatch(
            {"type": "custom_tool_call", "name": "mcp__figma__list_files", "input": "x", "call_id": "c1"}
        )
    )
    assert answer == {
        "fatal": "tool mcp__figma__list_files invoked with incompatible payload",
        "outcome": "fatal",
    }
    assert "tools/call" not in host.methods()


# --- time limits and cancellation ---------------------------------------------------------------------


class SilentHost:
    """A host that takes a request and never answers; remembers whether the request was cancelled."""

    def __init__(self) -> None:
        self.cancelled = asyncio.Event()
        self.params: dict[str, Any] = {}
        self.timeout_ms: int | None = None

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        self.params, self.timeout_ms = params, timeout_ms
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def board(**status: Any) -> ServerBoard:
    servers = ServerBoard(margin_ms=10)
    servers.update(parse_statuses([{"name": "figma", "transport": "stdio", "status": "ready", **status}]))
    return servers


async def test_a_host_that_never_answers_is_bounded_by_the_servers_tool_timeout_plus_a_margin() -> None:
    host = SilentHost()
    events: list[dict[str, Any]] = []
    call = McpToolCall(host, events.append, board(toolTimeoutSec=0.02))
    response = await call("c1", "figma", "list_files", "{}")
    assert response == McpOutput("tool call error: no answer from the native host, timed out after 30 ms")
    # The host applies the server's own timeout: the core sends none, it only bounds its own wait.
    assert "timeoutMs" not in host.params
    assert host.timeout_ms == 30
    assert host.cancelled.is_set()
    assert [event["type"] for event in events] == ["McpToolCallBegin", "McpToolCallEnd"]


async def test_cancelling_a_running_call_cancels_the_host_request_releases_the_gate_and_ends_the_call() -> (
    None
):
    log: list[str] = []
    gate = Gate()
    svc, _, events = await figma_service(FakeTool("slow", blocking_tool(gate, log, "slow")))
    running = asyncio.create_task(svc.handle(dispatch(function_call("mcp__figma__slow", "{}", "c1"))))
    await gate.started.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert log == ["slow start"]
    assert without_duration(events[-1]) == {
        "type": "McpToolCallEnd",
        "call_id": "c1",
        "invocation": {"server": "figma", "tool": "slow", "arguments": {}},
        "result": {"Err": "tool call cancelled"},
    }
    # The exclusive gate the call held is free again: a serial tool runs at once.
    plan = function_call("update_plan", '{"plan":[]}', "c2")
    answer = await asyncio.wait_for(svc.handle(dispatch(plan)), SOON)
    assert answer["output"]["output"] == "Plan updated"


@pytest.mark.parametrize(
    ("status", "limit_ms"),
    [
        ({"status": "ready", "toolTimeoutSec": 120}, 120_010),
        ({"status": "ready", "toolTimeoutSec": 0.5}, 510),
        # Not ready: the host starts it on this call, so its startup timeout counts as well.
        ({"status": "restarting", "toolTimeoutSec": 30, "startupTimeoutSec": 20}, 50_010),
        ({"status": "starting"}, 70_010),  # codex's defaults: 60 s per call, 10 s to start
        ({"status": "ready", "toolTimeoutSec": 1e308}, 2**31 - 1),  # never an overflowing timer
    ],
)
async def test_the_core_waits_as_long_as_the_servers_own_config_says(
    status: dict[str, Any], limit_ms: int
) -> None:
    host = FakeHost({"figma": FakeServer(tools=[FakeTool("list_files")])})
    await McpToolCall(host, lambda event: None, board(**status))("c1", "figma", "list_files", "{}")
    assert host.requests[-1].timeout_ms == limit_ms


async def test_a_server_the_core_has_no_status_for_gets_the_default_tool_timeout() -> None:
    host = FakeHost({"figma": FakeServer(tools=[FakeTool("list_files")])})
    await McpToolCall(host, lambda event: None, ServerBoard(margin_ms=10))("c1", "figma", "list_files", "{}")
    assert host.requests[-1].timeout_ms == 60_010
