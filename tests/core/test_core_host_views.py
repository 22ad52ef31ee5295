"""Prompts and server logs in the runtime API, and a tool a server adds at run time (§5 additions)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import FakeHost, FakeServer, FakeTool, connect, dispatch, function_call

from core.calls.capabilities import McpErrorCode
from core.runtime.facade import Service

pytestmark = pytest.mark.unit

LOG = {"level": "warning", "logger": "live", "data": "disk almost full", "at": 1_700_000_000_000}


def live_host() -> FakeHost:
    return FakeHost(
        {
            "live": FakeServer(
                tools=[FakeTool("grow")],
                prompts={"greet": "Hello, {name}!"},
                logs=[LOG],
                tool_timeout_sec=7,
            ),
            "other": FakeServer(prompts={"plan": "Plan the day."}),
        }
    )


async def connected(host: FakeHost) -> Service:
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host)
    return svc


async def test_prompts_lists_every_server_prompts_through_the_host() -> None:
    host = live_host()
    svc = await connected(host)
    assert await svc.handle({"type": "prompts"}) == {
        "prompts": [{"server": "live", "name": "greet"}, {"server": "other", "name": "plan"}]
    }
    assert await svc.handle({"type": "prompts", "server": "other"}) == {
        "prompts": [{"server": "other", "name": "plan"}]
    }
    assert host.methods() == ["prompts/list", "prompts/list"]
    assert host.requests[1].params == {"server": "other"}


async def test_prompt_get_fills_the_arguments_under_the_servers_own_time_limit() -> None:
    host = live_host()
    svc = await connected(host)
    answer = await svc.handle(
        {"type": "prompt/get", "server": "live", "name": "greet", "arguments": {"name": "Ada"}}
    )
    assert answer == {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]}
    request = host.requests[-1]
    assert request.params == {"server": "live", "name": "greet", "arguments": {"name": "Ada"}}
    assert request.timeout_ms is not None and 7_000 < request.timeout_ms < 60_000


async def test_the_hosts_errors_come_back_with_their_code_and_message() -> None:
    svc = await connected(live_host())
    assert await svc.handle({"type": "prompt/get", "server": "live", "name": "nope"}) == {
        "error": {"code": McpErrorCode.INVALID_PARAMS, "message": "Unknown prompt: nope"}
    }
    assert await svc.handle({"type": "server/logs", "server": "gone"}) == {
        "error": {"code": McpErrorCode.UNKNOWN_SERVER, "message": "unknown server 'gone'"}
    }


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "prompt/get", "name": "greet"}, "server"),
        ({"type": "prompt/get", "server": "live", "name": "greet", "arguments": {"n": 1}}, "arguments.n"),
        ({"type": "prompts", "server": 3}, "server"),
        ({"type": "server/logs"}, "server"),
    ],
)
async def test_malformed_messages_are_refused_naming_the_field_and_never_reach_the_host(
    message: dict[str, Any], field: str
) -> None:
    host = live_host()
    svc = await connected(host)
    answer = await svc.handle(message)
    assert answer["error"]["code"] == McpErrorCode.INVALID_PARAMS
    assert field in answer["error"]["message"]
    assert host.requests == []


async def test_server_logs_are_the_hosts_kept_messages() -> None:
    host = live_host()
    svc = await connected(host)
    assert await svc.handle({"type": "server/logs", "server": "live"}) == {"server": "live", "logs": [LOG]}
    assert host.methods() == ["servers/logs"]


async def test_without_a_connected_host_prompts_say_so() -> None:
    host = live_host()
    host.connected = False
    svc = await connected(host)
    answer = await svc.handle({"type": "prompts"})
    assert answer["error"]["code"] == McpErrorCode.SERVER_UNAVAILABLE
    assert "not connected" in answer["error"]["message"]
    assert host.ensures == 1
    assert host.requests == []
    no_way = await Service(emit=lambda event: None).handle({"type": "server/logs", "server": "live"})
    assert no_way["error"]["code"] == McpErrorCode.SERVER_UNAVAILABLE


async def test_a_tool_a_server_adds_at_run_time_is_offered_and_dispatched_after_its_status_changes() -> None:
    host = live_host()
    svc = await connected(host)
    await svc.handle({"type": "tools"})
    host.servers["live"].tools.append(FakeTool("sprout"))
    # The host bumps the server's `toolsVersion` on list_changed; the worker forwards the status change.
    statuses = [{**status, "toolsVersion": 1} for status in host.statuses()]
    assert await svc.handle({"type": "host/servers", "servers": statuses}) == {"ok": True}
    offered = [tool["name"] for tool in (await svc.handle({"type": "tools"}))["tools"]]
    assert "mcp__live__sprout" in offered
    answer = await svc.handle(dispatch(function_call("mcp__live__sprout", "{}")))
    assert answer["output"]["result"]["Ok"]["content"][0]["text"] == "echo:{}"
    assert host.methods() == ["tools/list", "tools/list", "tools/call"]


async def test_a_host_that_never_answers_times_out_with_minus_32001() -> None:
    host = live_host()
    svc = Service(emit=lambda event: None, host=host, timeout_margin_ms=0)
    await connect(svc, host)

    async def never(
        method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        await asyncio.Event().wait()

    host.request = never  # type: ignore[method-assign]
    answer = await svc.handle({"type": "server/logs", "server": "live"})
    assert answer["error"]["code"] == McpErrorCode.TIMED_OUT
    assert "servers/logs" in answer["error"]["message"]
