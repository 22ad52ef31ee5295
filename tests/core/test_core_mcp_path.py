"""Only a name that falls through to the MCP path waits for MCP (contract §6): built-in and browser calls
never wait for the tool list, a starting server or the host; tools of a server that is down answer why."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import (
    ONE_TAB,
    ONE_TAB_LISTED,
    SOON,
    FakeBrowser,
    FakeHost,
    FakeServer,
    FakeTool,
    connect,
    dispatch,
    function_call,
)

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.runtime.facade import Service
from tests.core.fenced import block, fenced

pytestmark = pytest.mark.unit


class HungToolsList(FakeHost):
    """A host whose `tools/list` never answers (a server stuck starting, before listings were bounded)."""

    def __init__(self, servers: dict[str, FakeServer]) -> None:
        super().__init__(servers)
        self.listing = asyncio.Event()

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        if method == "tools/list":
            self.listing.set()
            await asyncio.Event().wait()
        return await super().request(method, params, timeout_ms=timeout_ms, call_id=call_id)


async def service_for(host: FakeHost) -> Service:
    svc = Service(emit=lambda event: None, browser=FakeBrowser({"browser_tab": ONE_TAB}), host=host)
    await connect(svc, host)
    return svc


async def output_of(svc: Service, name: str, arguments: str = "{}") -> tuple[Any, Any]:
    answer = await asyncio.wait_for(svc.handle(dispatch(function_call(name, arguments))), SOON)
    output = answer["output"]
    return output.get("output", output.get("result")), answer["success"]


# --- nobody waits for what they do not need ---------------------------------------------------------------


async def test_update_plan_and_browser_calls_answer_while_the_mcp_tool_list_hangs() -> None:
    host = HungToolsList({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = await service_for(host)
    listing = asyncio.create_task(svc.handle({"type": "tools"}))
    stuck_call = asyncio.create_task(svc.handle(dispatch(function_call("mcp__notes__add"))))
    await asyncio.wait_for(host.listing.wait(), SOON)
    assert await output_of(svc, "update_plan", '{"plan":[]}') == ("Plan updated", True)
    text, success = await output_of(svc, "browser_tab", '{"action":"query"}')
    assert (fenced(text), success) == (block(ONE_TAB_LISTED), True)
    assert await output_of(svc, "list_mcp_resources", '{"server":"notes"}') == (
        '{"server":"notes","resources":[]}',
        True,
    )
    assert not listing.done() and not stuck_call.done()
    listing.cancel()
    stuck_call.cancel()
    await asyncio.gather(listing, stuck_call, return_exceptions=True)


async def test_built_in_and_browser_calls_never_ask_for_the_host() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])}, connected=False)
    svc = Service(emit=lambda event: None, browser=FakeBrowser({"browser_tab": []}), host=host)
    await output_of(svc, "update_plan", '{"plan":[]}')
    await output_of(svc, "browser_tab", '{"action":"query"}')
    assert (host.ensures, host.requests) == (0, [])


async def test_a_name_that_falls_through_asks_for_the_host_and_then_loads_the_tool_table() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = Service(emit=lambda event: None, host=host)
    await svc.handle({"type": "config/set", "patch": {"mcpTools": True}})
    # The worker has not said the host is connected yet: the call asks, then runs.
    assert await output_of(svc, "mcp__notes__add") == ({"Ok": {"content": ECHOED, "isError": False}}, True)
    assert host.ensures == 1
    assert host.methods() == ["tools/list", "tools/call"]


ECHOED = [{"type": "text", "text": "echo:{}"}]


# --- tools of a server that is down ---------------------------------------------------------------------


async def test_known_tools_of_a_server_that_is_down_stay_offered_and_answer_why() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")], failing=True, reason="connection closed")})
    svc = await service_for(host)
    offered = {tool["name"]: tool for tool in (await svc.handle({"type": "tools"}))["tools"]}
    assert (offered["mcp__notes__add"]["server"], offered["mcp__notes__add"]["available"]) == ("notes", False)
    assert await output_of(svc, "mcp__notes__add") == (
        {"Err": "tool call error: server 'notes' is unavailable: connection closed; restarting in 2 s"},
        False,
    )


async def test_a_server_back_up_serves_its_tools_again() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")], failing=True)})
    svc = await service_for(host)
    assert (await output_of(svc, "mcp__notes__add"))[1] is False
    host.servers["notes"].failing = False
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    assert (await output_of(svc, "mcp__notes__add"))[1] is True
    offered = {tool["name"]: tool for tool in (await svc.handle({"type": "tools"}))["tools"]}
    assert "available" not in offered["mcp__notes__add"]


@pytest.mark.parametrize(
    ("status", "why"),
    [
        (
            {"status": "failed", "error": "spawn failed: no such file: notes-server"},
            "server 'docs.v2' is unavailable: spawn failed: no such file: notes-server",
        ),
        (
            {"status": "restarting", "error": "exited with code 1", "retryInMs": 4000},
            "server 'docs.v2' is unavailable: exited with code 1; restarting in 4 s",
        ),
        (
            {"status": "restarting", "error": "connection closed"},
            "server 'docs.v2' is unavailable: connection closed; restarting now",
        ),
        (
            {"status": "disabled"},
            "server 'docs.v2' is unavailable: disabled in the config (enabled = false)",
        ),
    ],
)
async def test_a_tool_of_a_server_down_since_its_first_start_answers_why_not_unsupported(
    status: dict[str, Any], why: str
) -> None:
    # Its tools were never known, so only the configured server's name prefix can say whose call it is.
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = await service_for(host)
    host.extra_statuses = [{"name": "docs.v2", "transport": "stdio", **status}]
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    assert await output_of(svc, "mcp__docs_v2__search") == (why, False)
    assert "tools/call" not in host.methods()


async def test_a_tool_of_a_server_the_host_is_still_starting_waits_for_that_start() -> None:
    # Right after the host starts, its listing answers within 1 s, before the server's tools are known.
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = await service_for(host)
    docs = FakeServer(tools=[FakeTool("search")])
    host.extra_statuses = [{"name": "docs", "transport": "stdio", "status": "starting"}]
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    call = asyncio.ensure_future(output_of(svc, "mcp__docs__search"))
    await asyncio.sleep(0.05)
    assert not call.done()
    host.extra_statuses, host.servers["docs"] = [], docs  # the start finished: the host says so
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    assert (await call)[1] is True


async def test_a_start_that_outlasts_its_startup_timeout_answers_still_starting() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = Service(emit=lambda event: None, host=host, timeout_margin_ms=20)
    await connect(svc, host)
    starting = {"name": "docs", "transport": "stdio", "status": "starting", "startupTimeoutSec": 0.05}
    host.extra_statuses = [starting]
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    assert await output_of(svc, "mcp__docs__search") == (
        "server 'docs' is unavailable: still starting",
        False,
    )


async def test_an_unknown_tool_of_a_ready_server_is_still_an_unsupported_call() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = await service_for(host)
    assert await output_of(svc, "mcp__notes__remove") == ("unsupported call: mcp__notes__remove", False)


async def test_of_two_down_servers_whose_prefixes_match_the_longer_name_wins() -> None:
    host = FakeHost()
    svc = await service_for(host)
    host.extra_statuses = [
        {"name": "a", "transport": "stdio", "status": "failed", "error": "a is broken"},
        {"name": "a__b", "transport": "stdio", "status": "failed", "error": "a__b is broken"},
    ]
    await svc.handle({"type": "host/servers", "servers": host.statuses()})
    assert await output_of(svc, "mcp__a__b__x") == ("server 'a__b' is unavailable: a__b is broken", False)
    assert await output_of(svc, "mcp__a__x") == ("server 'a' is unavailable: a is broken", False)


async def test_a_down_server_without_a_host_or_with_mcp_tools_off_gets_the_guard_messages() -> None:
    host = FakeHost({"notes": FakeServer(tools=[FakeTool("add")], failing=True)})
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host, mcp_tools=False)
    assert await output_of(svc, "mcp__notes__add") == (
        "Tool 'mcp__notes__add' not available (mcpTools disabled in config)",
        False,
    )


async def test_a_call_while_the_tool_list_cannot_be_fetched_says_so_and_the_next_one_fetches_again() -> None:
    class ListFailsOnce(FakeHost):
        failed = False

        async def request(
            self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
        ) -> Any:
            if method == "tools/list" and not self.failed:
                self.failed = True
                raise McpRequestError(McpErrorCode.TIMED_OUT, "timed out after 1000 ms")
            return await super().request(method, params, timeout_ms=timeout_ms, call_id=call_id)

    host = ListFailsOnce({"notes": FakeServer(tools=[FakeTool("add")])})
    svc = await service_for(host)
    assert await output_of(svc, "mcp__notes__add") == (
        "unsupported call: mcp__notes__add "
        "(the MCP tool list is unavailable: tools/list failed: timed out after 1000 ms)",
        False,
    )
    assert await output_of(svc, "mcp__notes__add") == ({"Ok": {"content": ECHOED, "isError": False}}, True)
    assert host.failed and host.methods() == [
        "tools/list",
        "tools/call",
    ]  # the failed listing is not recorded
