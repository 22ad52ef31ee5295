"""The person's controls hold (contract §8.2): a pause stops a question that was already waiting from running
its call (the answer is recorded, the call runs when agents resume), a call on its way to the page stops
before it, at most 4 questions wait per agent, and the waiting questions are listed by agent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.consent.acting_gate import acting
from tests.core.test_core_gateway import CLAUDE, CODEX, SHOP, Setup, resources_host, text

pytestmark = pytest.mark.unit

TAB = 7  # the person's shop tab (SHOP), shared with the agents
ACTIVATE = {"action": "activate", "tabId": TAB}
assert SHOP["id"] == TAB


def activated(setup: Setup) -> list[tuple[str, dict[str, Any]]]:
    """The calls that reached the tab: the action the tests ask for, as the browser saw it."""
    return [(tool, args) for tool, args in setup.chrome.acted() if args.get("action") == "activate"]


async def paused_with_a_question(**config: Any) -> tuple[Setup, asyncio.Task[dict[str, Any]], str]:
    """Codex asks to act on the shared tab; then the person pauses all agents."""
    setup = await Setup(gateway=True, **config).start()
    await setup.tools()
    await setup.share(TAB)
    acting = setup.call("browser_tab", ACTIVATE)
    [request] = await setup.pending()
    assert await setup.send({"type": "agents/pause", "paused": True}) == {"paused": True}
    return setup, acting, request["id"]


async def test_an_answer_given_while_paused_runs_nothing_until_the_person_resumes_agents() -> None:
    setup, acting, approval = await paused_with_a_question()
    [shown] = (await setup.send({"type": "approvals"}))["pending"]
    assert shown["paused"] is True  # the popup says nothing it asks runs now
    assert await setup.answer(approval, "once") == {"ok": True}
    for _ in range(20):
        await asyncio.sleep(0)
    assert not acting.done() and activated(setup) == []
    listed = await setup.send({"type": "approvals"})
    assert listed["pending"] == [] and listed["paused"] is True  # the badge counts no question
    [held] = listed["held"]
    assert (held["id"], held["answered"], held["paused"]) == (approval, "once", True)
    assert [
        (g["label"], g["count"], g["unanswered"], g["approvals"], g["expanded"]) for g in listed["groups"]
    ] == [("/usr/local/bin/codex · “codex”", 1, 0, [approval], True)]
    await setup.send({"type": "agents/pause", "paused": False})
    result = await acting
    assert result["isError"] is False, text(result)
    assert len(activated(setup)) == 1
    assert (await setup.send({"type": "approvals"}))["held"] == []


async def test_a_held_call_can_still_be_denied_and_stopping_the_agent_withdraws_it() -> None:
    setup, acting, approval = await paused_with_a_question()
    await setup.answer(approval, "once")
    while not (await setup.send({"type": "approvals"}))["held"]:
        await asyncio.sleep(0.005)
    await setup.answer(approval, "deny")  # the person changed their mind before resuming
    denied = await acting
    assert denied["isError"] is True and "denied" in text(denied)

    second = setup.call("browser_tab", ACTIVATE)  # paused: refused, never asked
    assert "paused by the person" in text(await second)
    await setup.send({"type": "agents/pause", "paused": False})
    third = setup.call("browser_tab", ACTIVATE)
    [request] = await setup.pending()
    await setup.send({"type": "agents/pause", "paused": True})
    await setup.answer(request["id"], "session")
    while not (await setup.send({"type": "approvals"}))["held"]:
        await asyncio.sleep(0.005)
    await setup.send({"type": "agents/stop", "id": await setup.agent_id()})
    withdrawn = await third
    assert withdrawn["isError"] is True and "withdrawn" in text(withdrawn)
    await setup.send({"type": "agents/pause", "paused": False})
    assert activated(setup) == []


async def test_a_pause_that_outlasts_the_time_limit_after_the_answer_runs_nothing() -> None:
    setup, acting, approval = await paused_with_a_question(approvalTimeoutSec=0.2)
    await setup.answer(approval, "session")
    result = await acting
    assert result["isError"] is True
    assert "while agents were paused" in text(result) and "did not run" in text(result)
    await setup.send({"type": "agents/pause", "paused": False})
    assert activated(setup) == []


async def test_a_call_already_past_consent_stops_before_the_page_when_the_person_pauses() -> None:
    setup = await Setup(gateway=True, gatewayTrusted=[CODEX["executable"]]).start()
    await setup.tools()
    await setup.share(TAB)
    chrome = setup.chrome
    looking, go = asyncio.Event(), asyncio.Event()
    answer_tab = chrome.call

    async def slow_tab_lookup(tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        if tool == "tab":  # the executor's look-up of the tab, after consent, before the action
            looking.set()
            await go.wait()
        return await answer_tab(tool, args, timeout_ms=timeout_ms)

    chrome.call = slow_tab_lookup  # type: ignore[method-assign]
    acting = setup.call("browser_tab", ACTIVATE)
    await asyncio.wait_for(looking.wait(), 5)
    await setup.send({"type": "agents/pause", "paused": True})
    go.set()
    result = await acting
    assert result["isError"] is True and "before it reached the page" in text(result)
    assert "paused by the person" in text(result)
    assert activated(setup) == []
    [entry] = (await setup.send({"type": "agents/activity"}))["entries"]
    assert entry["outcome"] == "denied"


async def test_at_most_four_questions_wait_per_agent_and_a_fifth_is_refused_at_once() -> None:
    setup = await Setup(gateway=True).start()
    for agent in (CODEX, CLAUDE):
        await setup.tools(agent)
        await setup.share(TAB, agent=agent)
    # Four sessions of one program: the bound is the agent's, not the connection's.
    waiting = [setup.call("browser_tab", ACTIVATE, session=f"s{n}") for n in range(4)]
    asked = await setup.pending(4)
    fifth = await asyncio.wait_for(setup.call("browser_tab", ACTIVATE, session="s9"), 5)
    assert fifth["isError"] is True
    assert text(fifth).startswith("4 questions from this agent are already waiting for the person")
    assert len((await setup.send({"type": "approvals"}))["pending"]) == 4  # nobody was asked the fifth
    claude = setup.call("browser_tab", ACTIVATE, agent=CLAUDE, session="c1")  # another agent still asks
    await setup.pending(5)
    listed = await setup.send({"type": "approvals"})
    # Five questions: one folded row per agent, with its count.
    assert [(g["agent"], g["count"], g["expanded"]) for g in listed["groups"]] == [
        ("codex", 4, False),
        ("claude-code", 1, False),
    ]
    assert listed["groups"][0]["approvals"] == [request["id"] for request in asked]
    await setup.answer(asked[0]["id"], "deny")
    assert (await waiting[0])["isError"] is True
    sixth = setup.call("browser_tab", ACTIVATE, session="s9")  # one answered: room for one more
    await setup.pending(5)
    for request in (await setup.send({"type": "approvals"}))["pending"]:
        await setup.answer(request["id"], "once")
    results = await asyncio.gather(*waiting[1:], claude, sixth)
    assert [result["isError"] for result in results] == [False] * 5


async def test_sixty_four_sessions_of_one_agent_put_four_questions_before_the_person() -> None:
    setup = await Setup(gateway=True).start()
    await setup.tools()
    await setup.share(TAB)
    calls = [setup.call("browser_tab", ACTIVATE, session=f"s{n}") for n in range(64)]
    await setup.pending(4)
    refused = [await call for call in calls[4:]]  # each answered at once, nobody asked
    assert all(result["isError"] and text(result).startswith("4 questions") for result in refused)
    listed = await setup.send({"type": "approvals"})
    assert len(listed["pending"]) == 4 and [group["count"] for group in listed["groups"]] == [4]
    await setup.send({"type": "agents/stop", "id": await setup.agent_id()})
    withdrawn = [await call for call in calls[:4]]
    assert all("withdrawn" in text(result) for result in withdrawn)
    assert activated(setup) == []


async def test_an_mcp_tool_call_under_a_stop_never_reaches_the_server() -> None:
    """The MCP path's executor boundary: an acting call stopped by the pause sends no tools/call."""
    setup = await Setup(host=resources_host(), gateway=True, gatewayMcp=True).start()
    item = {"type": "function_call", "name": "mcp__notes__delete", "arguments": "{}", "call_id": "c1"}
    with acting(lambda: "stopped: paused by the person"):
        answer = await setup.service.handle({"type": "dispatch", "item": item})
    assert answer["success"] is False and "paused by the person" in json.dumps(answer)
    assert "tools/call" not in setup.host.methods()  # type: ignore[union-attr]
    assert (await setup.service.handle({"type": "dispatch", "item": item}))["success"] is True
    assert "tools/call" in setup.host.methods()  # type: ignore[union-attr]
