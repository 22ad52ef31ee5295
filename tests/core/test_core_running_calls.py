"""The person's Cancel (core/runtime/running_calls.py): any running call of theirs stops, browser or MCP, the
worker is told to stop what it runs for it, and the call ends `stopped`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from core_fakes import FakeHost, FakeServer, FakeTool, Gate, blocking_tool, dispatch, function_call

from core.runtime.bridge import Bridge
from tests.core.test_core_bridge import SOON, SilentWorker, ask, ready_bridge

pytestmark = pytest.mark.unit

STOPPED = "The call was stopped: cancelled by the person."


def stopped(answer: dict[str, Any], call_id: str) -> None:
    assert answer["answer"] == {
        "output": {"type": "function_call_output", "call_id": call_id, "output": STOPPED},
        "success": False,
        "outcome": "stopped",
    }
    assert answer["record"]["status"] == "stopped"


async def test_cancel_stops_a_running_browser_call_and_its_command_list() -> None:
    """A long browser call (typing, a wait): before, only MCP calls could be cancelled."""
    worker = SilentWorker()
    bridge = Bridge(worker)
    item = function_call("browser_dom", '{"action": "wait_for", "text": "never", "timeoutMs": 25000}', "p1")
    running = bridge.start(dispatch(item))
    for _ in range(100):
        if worker.payloads:
            break
        await asyncio.sleep(0)
    assert await ask(bridge, {"type": "cancel", "call_id": "p1"}) == {"cancelled": True}
    stopped(await asyncio.wait_for(running, SOON), "p1")
    assert worker.cancels == [worker.payloads[-1]["requestKey"]]


async def test_cancel_stops_a_running_mcp_call_and_cancels_its_host_request() -> None:
    gate = Gate()
    bridge, api = await ready_bridge(
        FakeHost({"notes": FakeServer(tools=[FakeTool("slow", blocking_tool(gate, [], "slow"))])})
    )
    running = bridge.start(dispatch(function_call("mcp__notes__slow", "{}", "c1")))
    await asyncio.wait_for(gate.started.wait(), SOON)
    assert await ask(bridge, {"type": "cancel", "call_id": "c1"}) == {"cancelled": True}
    stopped(await asyncio.wait_for(running, SOON), "c1")
    assert api.cancels == [api.host_payloads()[-1]["requestKey"]]


async def test_cancel_of_a_call_that_is_not_running_says_so() -> None:
    bridge = Bridge(SilentWorker())
    assert await ask(bridge, {"type": "cancel", "call_id": "gone"}) == {"cancelled": False}
