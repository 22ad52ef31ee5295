"""The bridge (I2): host requests with a unique requestKey and the server's own time limit, cancelled by that
key when the core gives up; `hostEnsure` only on the MCP path; `dispatch` answered `{answer, record}`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

import pytest
from core_fakes import (
    ONE_TAB,
    ONE_TAB_LISTED,
    SOON,
    FakeBrowser,
    FakeHost,
    FakeJsApi,
    FakeServer,
    FakeTool,
    Gate,
    blocking_tool,
    dispatch,
    function_call,
    never_settles,
)

from core.calls.capabilities import BrowserToolError, McpErrorCode
from core.calls.deadline import DeadlineExceeded, within
from core.runtime.bridge import Bridge, ServiceWorkerBrowser
from tests.core.fenced import block, fenced

pytestmark = pytest.mark.unit

MARGIN_MS = 20
PLAN = function_call("update_plan", '{"plan":[]}', "p1")


async def ask(bridge: Bridge, message: dict[str, Any]) -> Any:
    # Through JSON in the test: every answer must stay plain data, as the worker's conversion to JS needs.
    return json.loads(json.dumps(await bridge.handle(message)))


async def ready_bridge(
    host: FakeHost, *, mcp_tools: bool = True, margin_ms: int = MARGIN_MS
) -> tuple[Bridge, FakeJsApi]:
    api = FakeJsApi(host, FakeBrowser({"browser_tab": ONE_TAB}))
    bridge = Bridge(api, timeout_margin_ms=margin_ms)
    assert await ask(bridge, host.state_message()) == {"ok": True}
    await ask(bridge, {"type": "config/set", "patch": {"mcpTools": mcp_tools}})
    return bridge, api


def notes(**server: Any) -> FakeHost:
    return FakeHost({"notes": FakeServer(tools=[FakeTool("add")], **server)})


# --- host requests ----------------------------------------------------------------------------------------


async def test_a_tools_call_carries_a_request_key_the_call_id_and_the_servers_limit_plus_the_margin() -> None:
    bridge, api = await ready_bridge(notes(tool_timeout_sec=90))
    envelope = await ask(bridge, dispatch(function_call("mcp__notes__add", '{"text":"x"}', "c1")))
    assert envelope["answer"]["success"] is True
    listing, call = api.host_payloads()
    assert listing["method"] == "tools/list"
    assert "callId" not in listing  # only tools/call ties a host request to the model's call
    assert listing["timeoutMs"] == 1_000 + MARGIN_MS  # the host answers listings within 1 s
    assert call == {
        "method": "tools/call",
        "params": {"server": "notes", "tool": "add", "arguments": {"text": "x"}},
        "requestKey": call["requestKey"],
        "timeoutMs": 90_000 + MARGIN_MS,
        "callId": "c1",
    }
    assert listing["requestKey"] != call["requestKey"]
    assert api.cancels == []


async def test_a_host_request_past_the_servers_timeout_plus_the_margin_is_cancelled_by_its_key() -> None:
    bridge, api = await ready_bridge(notes(tool_timeout_sec=0.03))
    await ask(bridge, {"type": "tools"})
    api.silent.add("tools/call")
    envelope = await asyncio.wait_for(ask(bridge, dispatch(function_call("mcp__notes__add", "{}", "c1"))), 5)
    assert envelope["answer"] == {
        "output": {
            "type": "mcp_tool_call_output",
            "call_id": "c1",
            "result": {"Err": "tool call error: no answer from the native host, timed out after 50 ms"},
        },
        "success": False,
        "outcome": "failed",
    }
    call = api.host_payloads()[-1]
    assert (call["method"], call["timeoutMs"]) == ("tools/call", 50)
    assert api.cancels == [call["requestKey"]]
    assert [event["type"] for event in api.events if event["type"].startswith("Mcp")] == [
        "McpToolCallBegin",
        "McpToolCallEnd",
    ]


async def test_a_resource_read_past_its_limit_is_cancelled_by_its_key_too() -> None:
    bridge, api = await ready_bridge(notes(tool_timeout_sec=0.01))
    api.silent.add("resources/read")
    arguments = '{"server":"notes","uri":"memo://1"}'
    envelope = await ask(bridge, dispatch(function_call("read_mcp_resource", arguments, "r1")))
    assert envelope["answer"]["output"]["output"] == "resources/read failed: timed out after 30 ms"
    read = api.host_payloads()[-1]
    assert "callId" not in read
    assert api.cancels == [read["requestKey"]]


async def test_cancelling_a_dispatch_cancels_its_host_request_by_key() -> None:
    gate = Gate()
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("slow", blocking_tool(gate, [], "slow"))])})
    bridge, api = await ready_bridge(host)
    running = asyncio.create_task(ask(bridge, dispatch(function_call("mcp__notes__slow", "{}", "c1"))))
    await asyncio.wait_for(gate.started.wait(), SOON)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert api.cancels == [api.host_payloads()[-1]["requestKey"]]


# --- who asks for the host --------------------------------------------------------------------------------


async def test_built_in_and_browser_calls_never_ask_the_worker_about_the_host() -> None:
    bridge, api = await ready_bridge(notes())
    assert (await ask(bridge, dispatch(PLAN)))["answer"]["success"] is True
    tab = function_call("browser_tab", '{"action":"query"}', "b1")
    assert fenced((await ask(bridge, dispatch(tab)))["answer"]["output"]["output"]) == block(ONE_TAB_LISTED)
    assert api.kinds() == ["browser"]


async def test_an_exited_host_is_reconnected_before_a_call_is_refused_as_not_supported() -> None:
    host = notes()
    host.connected = False
    bridge, api = await ready_bridge(host)
    host.connected = True  # the worker starts the host again when asked
    envelope = await ask(bridge, dispatch(function_call("mcp__notes__add", "{}", "c1")))
    assert envelope["answer"]["success"] is True
    assert api.kinds() == ["hostEnsure", "host", "host"]


async def test_a_host_that_cannot_be_reached_answers_the_not_supported_guard() -> None:
    host = notes()
    host.connected = False
    bridge, api = await ready_bridge(host)
    envelope = await ask(bridge, dispatch(function_call("mcp__notes__add", "{}", "c1")))
    assert envelope["answer"]["output"]["output"] == (
        "MCP tools not supported in browser extension. Tool 'mcp__notes__add' not found."
    )
    api.ensure_error = {"code": -32000, "message": "service worker restarted"}
    again = await ask(bridge, dispatch(function_call("mcp__notes__add", "{}", "c2")))
    assert again["answer"]["success"] is False
    assert api.kinds() == ["hostEnsure", "hostEnsure"]


async def test_with_mcp_tools_off_the_worker_is_asked_and_the_disabled_guard_answers() -> None:
    bridge, api = await ready_bridge(notes(), mcp_tools=False)
    envelope = await ask(bridge, dispatch(function_call("made_up", "{}", "c1")))
    assert (
        envelope["answer"]["output"]["output"] == "Tool 'made_up' not available (mcpTools disabled in config)"
    )
    assert api.kinds() == ["hostEnsure"]


# --- answers --------------------------------------------------------------------------------------------


async def test_a_dispatch_is_answered_with_the_answer_and_its_history_record() -> None:
    bridge, _ = await ready_bridge(notes())
    envelope = await ask(bridge, dispatch(PLAN))
    answer = {
        "output": {"type": "function_call_output", "call_id": "p1", "output": "Plan updated"},
        "success": True,
        "outcome": "done",
    }
    # The record does not carry the answer a second time: the worker stores the one it relayed.
    assert envelope == {"answer": answer, "record": {"status": "done"}}


async def test_a_malformed_dispatch_is_answered_with_the_error_shape_and_recorded_as_rejected() -> None:
    bridge, _ = await ready_bridge(notes())
    error = {"error": {"code": -32602, "message": "item must be an object"}, "outcome": "rejected"}
    assert await ask(bridge, {"type": "dispatch", "item": 3}) == {
        "answer": error,
        "record": {"status": "rejected"},
    }


async def test_other_messages_are_answered_as_they_are() -> None:
    bridge, _ = await ready_bridge(notes())
    assert (await ask(bridge, {"type": "config/get"}))["mcpTools"] is True
    assert await ask(bridge, {"type": "nope"}) == {
        "error": {"code": -32601, "message": "unknown message type: 'nope'"}
    }


# --- starting a message (what the worker calls) -------------------------------------------------------------


async def test_a_message_python_answers_without_waiting_is_done_when_it_is_started() -> None:
    bridge, _ = await ready_bridge(notes())
    for message in ({"type": "config/get"}, dispatch(PLAN), {"type": "nope"}):
        task = bridge.start(message)
        assert task.done(), message  # no turn of the event loop in between
        assert task.result() == await bridge.handle(message)


async def test_a_started_call_that_waits_on_the_worker_ends_when_the_worker_answers() -> None:
    gate, log = Gate(), []
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("hold", blocking_tool(gate, log, "hold"))])})
    bridge, _ = await ready_bridge(host)
    task = bridge.start(dispatch(function_call("mcp__notes__hold", "{}", "h1")))
    assert not task.done()
    await gate.started.wait()
    assert not task.done()
    gate.release.set()
    envelope = await task
    assert envelope["answer"]["outcome"] == "done" and log == ["hold start", "hold end"]


# --- the agent gateway ------------------------------------------------------------------------------------


async def test_an_agents_call_is_answered_in_mcps_shape_with_its_record_under_the_workers_call_id() -> None:
    bridge, api = await ready_bridge(notes())
    await ask(bridge, {"type": "config/set", "patch": {"gateway": True}})
    message = {
        "type": "gateway/call",
        "session": "agent-1",
        "agent": {"name": "codex", "version": "1", "executable": "/usr/bin/codex"},
        "name": "update_plan",
        "arguments": {"plan": []},
        "callId": "agent-1:abc",
    }
    envelope = await ask(bridge, message)
    assert envelope["answer"] == {"content": [{"type": "text", "text": "Plan updated"}], "isError": False}
    assert envelope["record"]["status"] == "done"
    [started] = [event for event in api.events if event["type"] == "gateway/started"]
    assert started["callId"] == "agent-1:abc"
    assert started["item"]["call_id"] == "agent-1:abc"  # the one item, built in Python
    assert started["caller"] == "/usr/bin/codex · “codex”"
    refused = await ask(bridge, {**message, "name": "no_such_tool"})
    # The agent's mistake: failed, in history as in the activity log.
    assert refused["record"]["status"] == "failed"
    assert refused["answer"]["isError"] is True


async def test_the_gateway_switch_reaches_the_host_as_an_event() -> None:
    bridge, api = await ready_bridge(notes())
    await ask(bridge, {"type": "config/set", "patch": {"gateway": True}})
    states = [event for event in api.events if event["type"] == "gateway/state"]
    assert states[-1] == {"type": "gateway/state", "enabled": True}


# --- browser errors ---------------------------------------------------------------------------------------


class RefusingWorker:
    """A service worker whose browser executor answers every call with this error."""

    def __init__(self, error: Any) -> None:
        self.error = error

    async def request(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"error": self.error}

    def emit(self, event: dict[str, Any]) -> None: ...

    def cancel(self, request_key: str) -> None: ...


async def test_a_browser_error_reaches_python_with_its_code_and_data_intact() -> None:
    data = {"tabId": 5, "shown": "https://b.test"}
    worker = RefusingWorker({"code": McpErrorCode.PAGE_CHANGED, "message": "tab 5 shows it", "data": data})
    with pytest.raises(BrowserToolError) as refused:
        await ServiceWorkerBrowser(worker).call("cdp", {}, timeout_ms=10)
    assert (refused.value.code, refused.value.message, refused.value.data) == (-32003, "tab 5 shows it", data)


class SilentWorker:
    """A service worker that takes every browser call and answers none; keeps what it got and cancelled."""

    def __init__(self) -> None:
        self.payloads: list[dict[str, Any]] = []
        self.cancels: list[str] = []

    def request(self, kind: str, payload: dict[str, Any]) -> Awaitable[Any]:
        self.payloads.append(payload)
        return never_settles()

    def emit(self, event: dict[str, Any]) -> None: ...

    def cancel(self, request_key: str) -> None:
        self.cancels.append(request_key)


async def test_a_browser_call_python_gives_up_on_is_cancelled_by_its_key_so_its_list_stops() -> None:
    """The call's time limit or a stop: the worker is told, and a command list still running (an agent's
    typing) sends nothing more to the page."""
    worker = SilentWorker()
    browser = ServiceWorkerBrowser(worker)
    with pytest.raises(DeadlineExceeded):
        await within(browser.call("cdp", {"commands": []}, timeout_ms=10), 20)
    running = asyncio.create_task(browser.call("cdp", {"commands": []}, timeout_ms=10))
    await asyncio.sleep(0)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    first, second = worker.payloads
    assert first == {
        "tool": "cdp",
        "args": {"commands": []},
        "timeoutMs": 10,
        "requestKey": first["requestKey"],
    }
    assert worker.cancels == [first["requestKey"], second["requestKey"]]
    assert first["requestKey"] != second["requestKey"]


@pytest.mark.parametrize("error", [{"message": "no code"}, {"code": "x", "message": "no code"}, "no code"])
async def test_a_browser_error_without_an_integer_code_is_an_internal_error(error: Any) -> None:
    with pytest.raises(BrowserToolError) as refused:
        await ServiceWorkerBrowser(RefusingWorker(error)).call("cdp", {}, timeout_ms=10)
    assert (refused.value.code, refused.value.message) == (McpErrorCode.INTERNAL_ERROR, "no code")
