"""One outcome per call (contract §11, issue 26): every way a call ends is decided once, in Python, and the
history record, the agents' activity log and the agent's own answer read that one value."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from core.calls.outcome import Outcome
from core.messages.runtime_messages import Dispatch, parse_runtime_message
from core.records.history import record_for
from core.records.history_book import HistoryBook
from tests.core.test_core_gateway import CODEX, SHOP, Setup

pytestmark = pytest.mark.unit

TAB = 7  # the person's shop tab (SHOP), shared with the agent
ACTIVATE = {"action": "activate", "tabId": TAB}
PLAN: dict[str, Any] = {"plan": []}
assert SHOP["id"] == TAB

# What the gateway's dispatch is turned into, for the endings only the call's item decides.
ITEMS: dict[str, dict[str, Any]] = {
    "done": {"type": "function_call", "name": "update_plan", "arguments": '{"plan":[]}', "call_id": "c"},
    "failed": {"type": "function_call", "name": "update_plan", "arguments": '{"plan":3}', "call_id": "c"},
    # codex answers a local_shell_call without any id with no success flag at all.
    "no success flag": {"type": "local_shell_call", "action": {"type": "exec", "command": ["ls"]}},
    "fatal": {"type": "custom_tool_call", "name": "update_plan", "input": "x", "call_id": "c"},
    "rejected": {"type": "function_call", "name": "update_plan", "call_id": "c"},
}


async def call(setup: Setup, name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    """An agent's call as the bridge makes it: the envelope of the agent's answer and the history record."""
    message = {
        "type": "gateway/call",
        "session": "s1",
        "agent": CODEX,
        "name": name,
        "arguments": arguments,
        "callId": call_id,
    }
    envelope: dict[str, Any] = await setup.gateway.handle(message)
    return envelope


async def agreed(setup: Setup, envelope: dict[str, Any], call_id: str) -> Outcome:
    """The one outcome the history record, the activity entry and the agent's answer all say."""
    outcome = Outcome(envelope["record"]["status"])
    [entry] = [e for e in (await setup.send({"type": "agents/activity"}))["entries"] if e["id"] == call_id]
    assert entry["outcome"] == outcome.value
    assert envelope["answer"]["isError"] is (outcome is not Outcome.DONE)
    # The history's copy of the answer carries the same value the popup reads.
    assert envelope["record"]["answer"]["outcome"] == outcome.value
    return outcome


async def ended_by_its_item(item: str) -> Outcome:
    """An agent's call whose dispatch is `ITEMS[item]`: the call's own answer decides how it ended."""
    setup = await Setup(gateway=True).start()
    service_handle = setup.service.handle

    async def dispatch_the_item(message: Any) -> dict[str, Any]:
        if isinstance(message, Dispatch):
            message = message.model_copy(update={"item": ITEMS[item]})
        return await service_handle(message)

    setup.service.handle = dispatch_the_item  # type: ignore[method-assign]
    envelope = await call(setup, "update_plan", PLAN, "call-1")
    return await agreed(setup, envelope, "call-1")


async def test_an_answer_without_a_success_flag_is_done_everywhere() -> None:
    assert await ended_by_its_item("no success flag") is Outcome.DONE


async def test_a_call_without_a_success_flag_is_done_for_the_person_too() -> None:
    """Before: history said done and the activity log failed for the same answer."""
    setup = await Setup().start()
    answer = await setup.service.handle({"type": "dispatch", "item": ITEMS["no success flag"]})
    assert (answer["success"], answer["outcome"]) == (None, "done")
    assert record_for(answer)["status"] == "done"


async def denied_by_the_person() -> Outcome:
    setup = await Setup(gateway=True).start()
    await setup.tools()
    await setup.share(TAB)
    acting = asyncio.ensure_future(call(setup, "browser_tab", ACTIVATE, "call-2"))
    [request] = await setup.pending()
    await setup.answer(request["id"], "deny")
    return await agreed(setup, await acting, "call-2")


async def running_past_consent() -> tuple[Setup, asyncio.Future[dict[str, Any]], asyncio.Event]:
    """A trusted agent's acting call, held at the executor's tab look-up (after consent, before the page)."""
    setup = await Setup(gateway=True, gatewayTrusted=[CODEX["executable"]]).start()
    await setup.tools()
    await setup.share(TAB)
    looking, never = asyncio.Event(), asyncio.Event()
    answer_tab = setup.chrome.call

    async def held_tab_lookup(tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        if tool == "tab":
            looking.set()
            await never.wait()
        return await answer_tab(tool, args, timeout_ms=timeout_ms)

    setup.chrome.call = held_tab_lookup  # type: ignore[method-assign]
    acting = asyncio.ensure_future(call(setup, "browser_tab", ACTIVATE, "call-3"))
    await asyncio.wait_for(looking.wait(), 5)
    return setup, acting, never


async def stopped_by_the_person() -> Outcome:
    setup, acting, _ = await running_past_consent()
    assert await setup.send({"type": "agents/stop", "id": await setup.agent_id()}) == {"stopped": 1}
    return await agreed(setup, await acting, "call-3")


async def withdrawn_with_its_agent() -> Outcome:
    setup, acting, _ = await running_past_consent()
    await setup.send({"type": "gateway/closed", "session": "s1"})
    return await agreed(setup, await acting, "call-3")


async def interrupted_by_a_stopped_worker() -> Outcome:
    """No answer exists for it: history ends it with the outcome Python names."""
    index = [{"id": "r", "status": "running", "bytes": 10}]
    loaded = HistoryBook().load(
        parse_runtime_message({"type": "history/load", "index": index, "fresh": True})
    )
    assert loaded["interrupted"] == ["r"]
    return Outcome(loaded["status"])


# Every ending the code has, each reached the way it happens; an `Outcome` added without one fails here.
ENDINGS: dict[Outcome, Callable[[], Awaitable[Outcome]]] = {
    Outcome.DONE: lambda: ended_by_its_item("done"),
    Outcome.FAILED: lambda: ended_by_its_item("failed"),
    Outcome.FATAL: lambda: ended_by_its_item("fatal"),
    Outcome.REJECTED: lambda: ended_by_its_item("rejected"),
    Outcome.DENIED: denied_by_the_person,
    Outcome.STOPPED: stopped_by_the_person,
    Outcome.WITHDRAWN: withdrawn_with_its_agent,
    Outcome.INTERRUPTED: interrupted_by_a_stopped_worker,
}


@pytest.mark.parametrize("outcome", list(Outcome), ids=str)
async def test_every_ending_is_read_alike_everywhere(outcome: Outcome) -> None:
    assert outcome in ENDINGS, f"no test reaches the ending {outcome.value!r}"
    assert await ENDINGS[outcome]() is outcome
