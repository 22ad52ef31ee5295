"""The extension's side of the agent gateway: what agents see, and consent before anything acts (§8)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import FakeBrowser, FakeHost, FakeServer, FakeTool, connect

from core.gateway import AgentGateway
from core.service import Service

pytestmark = pytest.mark.unit

AGENT = {"name": "codex", "version": "1.2"}
TAB = {"id": 7, "url": "https://shop.example/cart", "title": "Cart", "active": True}


class Setup:
    def __init__(self, host: FakeHost | None = None, **config: Any) -> None:
        self.events: list[dict[str, Any]] = []
        self.browser = FakeBrowser({"browser_tab": [TAB], "browser_dom": "clicked", "browser_page": "Cart"})
        self.host = host
        self.service = Service(emit=self.events.append, browser=self.browser, host=host)
        self.gateway = AgentGateway(self.service.handle, self.browser, self.events.append)
        self.config = config

    async def start(self) -> Setup:
        if self.host is not None:
            await connect(self.service, self.host)
        await self.service.handle({"type": "config/set", "patch": self.config})
        return self

    async def tools(self, session: str = "agent-1") -> list[str]:
        answer = await self.gateway.handle({"type": "gateway/tools", "session": session, "client": AGENT})
        return [tool["name"] for tool in answer["tools"]]

    def call(self, name: str, arguments: dict[str, Any], session: str = "agent-1") -> asyncio.Task[Any]:
        message = {
            "type": "gateway/call",
            "session": session,
            "client": AGENT,
            "name": name,
            "arguments": arguments,
        }
        return asyncio.ensure_future(self.gateway.handle(message))

    async def pending(self) -> list[dict[str, Any]]:
        for _ in range(100):
            pending: list[dict[str, Any]] = (await self.gateway.handle({"type": "approvals"}))["pending"]
            if pending:
                return pending
            await asyncio.sleep(0.01)
        return []

    async def answer(self, approval_id: str, decision: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.gateway.handle(
            {"type": "approval/answer", "id": approval_id, "decision": decision}
        )
        return result

    def acted(self) -> int:
        """How many times the acting call reached the browser."""
        return sum(1 for tool, args, _t in self.browser.calls if args.get("action") == "activate")


# An acting call: it changes which tab is shown (a site is taken from the tab it acts on).
ACT = {"action": "activate", "tabId": 7}


async def test_with_the_gateway_off_agents_see_nothing_and_are_told_how_to_turn_it_on() -> None:
    setup = await Setup().start()
    assert await setup.tools() == []
    answer = await setup.call("browser_tab", {"action": "query"})
    assert answer["error"]["message"].startswith("Tabgate's agent gateway is off")
    assert "Let agents use Tabgate" in answer["error"]["message"]


async def test_agents_see_built_in_and_browser_tools_but_not_mcp_tools_unless_allowed() -> None:
    setup = await Setup(gateway=True).start()
    names = await setup.tools()
    assert "update_plan" in names
    assert "browser_tab" in names
    assert not [name for name in names if name.startswith("mcp__")]


async def test_reading_runs_at_once_in_the_sessions_own_turn() -> None:
    setup = await Setup(gateway=True).start()
    answer = await setup.call("browser_page", {"action": "title"})
    assert answer["success"] is True
    assert answer["output"]["output"] == "Cart"
    assert await setup.gateway.handle({"type": "approvals"}) == {"pending": []}


async def test_acting_asks_once_and_allow_for_this_session_covers_the_next_call_on_that_site() -> None:
    setup = await Setup(gateway=True).start()
    first = setup.call("browser_tab", ACT)
    [request] = await setup.pending()
    assert request["client"] == "codex"
    assert request["site"] == "https://shop.example"
    assert request["tool"] == "browser_tab" and request["action"] == "activate"
    assert request["summary"] == "browser_tab activate on https://shop.example"
    assert {"type": "approval", "pending": [request]} in setup.events
    assert setup.acted() == 0  # nothing acted before the answer
    assert await setup.answer(request["id"], "session") == {"ok": True}
    assert (await first)["success"] is True
    assert (await setup.call("browser_tab", ACT))["success"] is True
    assert setup.acted() == 2
    assert setup.events[-1]["type"] != "approval" or setup.events[-1]["pending"] == []


async def test_allow_once_asks_again_next_time() -> None:
    setup = await Setup(gateway=True).start()
    first = setup.call("browser_tab", ACT)
    [request] = await setup.pending()
    await setup.answer(request["id"], "once")
    await first
    second = setup.call("browser_tab", ACT)
    assert len(await setup.pending()) == 1
    second.cancel()


async def test_deny_answers_an_error_saying_the_user_denied_it() -> None:
    setup = await Setup(gateway=True).start()
    call = setup.call("browser_tab", ACT)
    [request] = await setup.pending()
    await setup.answer(request["id"], "deny")
    answer = await call
    assert "denied" in answer["error"]["message"]
    assert setup.acted() == 0


async def test_an_unanswered_request_is_denied_when_its_time_runs_out() -> None:
    setup = await Setup(gateway=True, approvalTimeoutSec=0.05).start()
    answer = await setup.call("browser_tab", ACT)
    assert "did not answer" in answer["error"]["message"]
    assert await setup.gateway.handle({"type": "approvals"}) == {"pending": []}


async def test_grants_belong_to_one_session() -> None:
    setup = await Setup(gateway=True).start()
    first = setup.call("browser_tab", ACT, session="agent-1")
    [request] = await setup.pending()
    await setup.answer(request["id"], "session")
    await first
    other = setup.call("browser_tab", ACT, session="agent-2")
    assert len(await setup.pending()) == 1  # another session of the same agent is asked again
    await setup.gateway.handle({"type": "gateway/closed", "session": "agent-2"})
    assert "denied" in (await other)["error"]["message"]


async def test_an_agent_trusted_to_act_without_asking_is_not_asked() -> None:
    setup = await Setup(gateway=True, gatewayTrusted=["codex"]).start()
    assert (await setup.call("browser_tab", ACT))["success"] is True
    agents = (await setup.gateway.handle({"type": "gateway/agents"}))["agents"]
    assert agents == [
        {
            "name": "codex",
            "version": "1.2",
            "connected": True,
            "calls": 1,
            "grants": [],
            "actWithoutAsking": True,
        }
    ]


async def test_a_bad_decision_or_unknown_request_is_refused_clearly() -> None:
    setup = await Setup(gateway=True).start()
    assert (await setup.answer("approval-1", "maybe"))["error"]["code"] == -32602
    assert "no pending approval" in (await setup.answer("approval-99", "once"))["error"]["message"]


async def test_the_host_hears_when_the_gateway_is_switched() -> None:
    setup = await Setup().start()
    await setup.gateway.after({"type": "config/load"})
    await setup.service.handle({"type": "config/set", "patch": {"gateway": True}})
    await setup.gateway.after({"type": "config/set"})
    states = [event for event in setup.events if event["type"] == "gateway/state"]
    assert states == [{"type": "gateway/state", "enabled": False}, {"type": "gateway/state", "enabled": True}]
    assert setup.events[-1] == {"type": "gateway/changed"}


def notes_host() -> FakeHost:
    return FakeHost(
        {
            "notes": FakeServer(
                tools=[
                    FakeTool("search", annotations={"readOnlyHint": True}),
                    FakeTool("delete", annotations={"destructiveHint": True}),
                ]
            )
        }
    )


async def test_mcp_tools_reach_agents_only_with_gateway_mcp_and_read_only_ones_run_at_once() -> None:
    hidden = await Setup(notes_host(), gateway=True).start()
    assert not [name for name in await hidden.tools() if name.startswith("mcp__")]
    setup = await Setup(notes_host(), gateway=True, gatewayMcp=True).start()
    tools = (await setup.gateway.handle({"type": "gateway/tools", "session": "agent-1", "client": AGENT}))[
        "tools"
    ]
    by_name = {tool["name"]: tool for tool in tools}
    assert by_name["mcp__notes__search"]["annotations"] == {"readOnlyHint": True}
    searched = await setup.call("mcp__notes__search", {"q": "x"})
    assert searched["success"] is True
    deleting = setup.call("mcp__notes__delete", {"id": 1})
    [request] = await setup.pending()
    assert (request["tool"], "site" in request) == ("mcp__notes__delete", False)
    await setup.answer(request["id"], "session")
    assert (await deleting)["success"] is True
    assert (await setup.call("mcp__notes__delete", {"id": 2}))[
        "success"
    ] is True  # same tool: not asked again
