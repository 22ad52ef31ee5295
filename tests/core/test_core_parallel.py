"""Parallel calls (spec 004 §5, contract §5 `turn`): within a turn parallel tools share the gate and serial
ones hold it alone; calls of different turns, and calls without a turn, never wait for each other."""

from __future__ import annotations

import asyncio
from collections import defaultdict
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
)

from core.runtime.facade import Service
from core.tools.parallel import ParallelGate, TurnGates

pytestmark = pytest.mark.unit


async def settle() -> None:
    """Let every runnable task run until it blocks."""
    for _ in range(20):
        await asyncio.sleep(0)


# --- the gate itself ----------------------------------------------------------------------------------


async def hold(
    gate: ParallelGate, parallel: bool, label: str, log: list[str], release: asyncio.Event
) -> None:
    async with gate.hold(parallel=parallel):
        log.append(f"{label} in")
        await release.wait()
        log.append(f"{label} out")


async def test_shared_holders_run_together() -> None:
    gate, log, release = ParallelGate(), [], asyncio.Event()
    tasks = [asyncio.create_task(hold(gate, True, name, log, release)) for name in ("a", "b")]
    await settle()
    assert log == ["a in", "b in"]
    release.set()
    await asyncio.gather(*tasks)


async def test_an_exclusive_holder_waits_for_shared_ones_and_later_arrivals_wait_for_it() -> None:
    gate, log = ParallelGate(), []
    first, serial, later = asyncio.Event(), asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(hold(gate, True, "first", log, first))]
    await settle()
    tasks.append(asyncio.create_task(hold(gate, False, "serial", log, serial)))
    await settle()
    tasks.append(asyncio.create_task(hold(gate, True, "later", log, later)))
    await settle()
    assert log == ["first in"]
    first.set()
    await settle()
    assert log == ["first in", "first out", "serial in"]
    serial.set()
    later.set()
    await asyncio.gather(*tasks)
    assert log == ["first in", "first out", "serial in", "serial out", "later in", "later out"]


async def test_a_cancelled_waiter_does_not_block_the_ones_behind_it() -> None:
    gate, log = ParallelGate(), []
    first, never = asyncio.Event(), asyncio.Event()
    running = asyncio.create_task(hold(gate, True, "running", log, first))
    await settle()
    waiting_serial = asyncio.create_task(hold(gate, False, "serial", log, never))
    await settle()
    behind = asyncio.create_task(hold(gate, True, "behind", log, first))
    await settle()
    waiting_serial.cancel()
    await settle()
    assert log == ["running in", "behind in"]
    first.set()
    await asyncio.gather(running, behind)
    assert waiting_serial.cancelled()


async def test_the_gate_is_released_when_the_holder_fails() -> None:
    gate = ParallelGate()
    with pytest.raises(RuntimeError):
        async with gate.hold(parallel=False):
            raise RuntimeError("handler failed")
    async with asyncio.timeout(SOON), gate.hold(parallel=False):
        pass


# --- real tools through the service -------------------------------------------------------------------


class SlowListingHost(FakeHost):
    """Holds every `resources/list` open until the test releases it."""

    def __init__(self, servers: dict[str, FakeServer], log: list[str]) -> None:
        super().__init__(servers)
        self.log = log
        self.gates: defaultdict[str, Gate] = defaultdict(Gate)

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        if method == "resources/list":
            label = f"list {params['server']}"
            gate = self.gates[label]
            self.log.append(f"{label} start")
            gate.started.set()
            await gate.release.wait()
            self.log.append(f"{label} end")
        return await super().request(method, params, timeout_ms=timeout_ms, call_id=call_id)


async def concurrent_service() -> tuple[Service, SlowListingHost, dict[str, Gate], list[str]]:
    log: list[str] = []
    tool_gates = {"slow1": Gate(), "slow2": Gate()}
    tools = [FakeTool(name, blocking_tool(gate, log, name)) for name, gate in tool_gates.items()]
    host = SlowListingHost({"a": FakeServer(tools=tools), "b": FakeServer()}, log)
    svc = Service(emit=lambda event: None, host=host)
    await connect(svc, host)
    await svc.handle({"type": "tools"})
    return svc, host, tool_gates, log


TURN = "turn-1"


def list_call(server: str, turn: str | None = TURN) -> dict[str, Any]:
    return dispatch(function_call("list_mcp_resources", f'{{"server":"{server}"}}', f"list-{server}"), turn)


def mcp_call(tool: str, turn: str | None = TURN) -> dict[str, Any]:
    return dispatch(function_call(f"mcp__a__{tool}", "{}", tool), turn)


def plan_call(turn: str | None = TURN) -> dict[str, Any]:
    return dispatch(function_call("update_plan", '{"plan":[]}', "p"), turn)


async def test_parallel_resource_calls_run_at_the_same_time() -> None:
    svc, host, _, log = await concurrent_service()
    tasks = [asyncio.create_task(svc.handle(list_call(server))) for server in ("a", "b")]
    await asyncio.wait_for(host.gates["list a"].started.wait(), SOON)
    await asyncio.wait_for(host.gates["list b"].started.wait(), SOON)
    assert log == ["list a start", "list b start"]
    host.gates["list a"].release.set()
    host.gates["list b"].release.set()
    answers = await asyncio.gather(*tasks)
    assert [answer["success"] for answer in answers] == [True, True]


async def test_an_mcp_tool_waits_for_running_parallel_calls_and_blocks_later_ones() -> None:
    svc, host, tool_gates, log = await concurrent_service()
    first = asyncio.create_task(svc.handle(list_call("a")))
    await asyncio.wait_for(host.gates["list a"].started.wait(), SOON)
    serial = asyncio.create_task(svc.handle(mcp_call("slow1")))
    await settle()
    later = asyncio.create_task(svc.handle(list_call("b")))
    await settle()
    assert log == ["list a start"]

    host.gates["list a"].release.set()
    await asyncio.wait_for(tool_gates["slow1"].started.wait(), SOON)
    await settle()
    assert log == ["list a start", "list a end", "slow1 start"]

    tool_gates["slow1"].release.set()
    await asyncio.wait_for(host.gates["list b"].started.wait(), SOON)
    host.gates["list b"].release.set()
    await asyncio.gather(first, serial, later)
    assert log == ["list a start", "list a end", "slow1 start", "slow1 end", "list b start", "list b end"]


async def test_two_mcp_tool_calls_never_interleave() -> None:
    svc, _, tool_gates, log = await concurrent_service()
    tasks = [asyncio.create_task(svc.handle(mcp_call(name))) for name in ("slow1", "slow2")]
    await asyncio.wait_for(tool_gates["slow1"].started.wait(), SOON)
    await settle()
    assert log == ["slow1 start"]
    tool_gates["slow1"].release.set()
    await asyncio.wait_for(tool_gates["slow2"].started.wait(), SOON)
    tool_gates["slow2"].release.set()
    await asyncio.gather(*tasks)
    assert log == ["slow1 start", "slow1 end", "slow2 start", "slow2 end"]


async def test_update_plan_waits_for_a_running_mcp_call() -> None:
    svc, _, tool_gates, _ = await concurrent_service()
    running = asyncio.create_task(svc.handle(mcp_call("slow1")))
    await asyncio.wait_for(tool_gates["slow1"].started.wait(), SOON)
    plan = asyncio.create_task(svc.handle(plan_call()))
    await settle()
    assert not plan.done()
    tool_gates["slow1"].release.set()
    answer = await asyncio.wait_for(plan, SOON)
    assert answer["output"]["output"] == "Plan updated"
    await running


async def test_calls_of_different_turns_never_wait_for_each_other() -> None:
    svc, _, tool_gates, log = await concurrent_service()
    running = asyncio.create_task(svc.handle(mcp_call("slow1", "turn-a")))
    await asyncio.wait_for(tool_gates["slow1"].started.wait(), SOON)
    # A serial built-in of another turn answers while the first turn's serial MCP call still runs...
    answer = await asyncio.wait_for(svc.handle(plan_call("turn-b")), SOON)
    assert answer["output"]["output"] == "Plan updated"
    # ...and so does a serial MCP call of that other turn: both hold their own turn's gate alone.
    other = asyncio.create_task(svc.handle(mcp_call("slow2", "turn-b")))
    await asyncio.wait_for(tool_gates["slow2"].started.wait(), SOON)
    assert log == ["slow1 start", "slow2 start"]
    tool_gates["slow1"].release.set()
    tool_gates["slow2"].release.set()
    answers = await asyncio.gather(running, other)
    assert [answer["success"] for answer in answers] == [True, True]


async def test_calls_without_a_turn_are_each_their_own_turn() -> None:
    svc, _, tool_gates, log = await concurrent_service()
    tasks = [asyncio.create_task(svc.handle(mcp_call(name, None))) for name in ("slow1", "slow2")]
    await asyncio.wait_for(tool_gates["slow1"].started.wait(), SOON)
    await asyncio.wait_for(tool_gates["slow2"].started.wait(), SOON)
    answer = await asyncio.wait_for(svc.handle(plan_call(None)), SOON)
    assert answer["success"] is True
    for gate in tool_gates.values():
        gate.release.set()
    await asyncio.gather(*tasks)
    assert sorted(log) == ["slow1 end", "slow1 start", "slow2 end", "slow2 start"]


async def test_a_turn_keeps_its_gate_only_while_one_of_its_calls_runs_or_waits() -> None:
    gates, log = TurnGates(), []
    release, never = asyncio.Event(), asyncio.Event()

    async def hold_turn(turn: str | None, parallel: bool, label: str, until: asyncio.Event) -> None:
        async with gates.hold(turn, parallel=parallel):
            log.append(f"{label} in")
            await until.wait()

    running = asyncio.create_task(hold_turn("a", False, "a1", release))
    waiting = asyncio.create_task(hold_turn("a", False, "a2", never))
    other = asyncio.create_task(hold_turn("b", True, "b1", release))
    own = asyncio.create_task(hold_turn(None, False, "none", release))
    await settle()
    assert log == ["a1 in", "b1 in", "none in"]
    assert len(gates) == 2  # a call without a turn holds no gate at all
    waiting.cancel()
    release.set()
    await asyncio.gather(running, other, own)
    assert waiting.cancelled()
    assert len(gates) == 0
    # A turn id used again later starts from a fresh gate.
    async with asyncio.timeout(SOON), gates.hold("a", parallel=False):
        assert len(gates) == 1
    assert len(gates) == 0


async def test_each_offered_tool_declares_whether_it_supports_parallel_calls() -> None:
    svc, _, _, _ = await concurrent_service()
    offered = {
        tool["name"]: tool["supportsParallel"] for tool in (await svc.handle({"type": "tools"}))["tools"]
    }
    assert offered == {
        "update_plan": False,
        "list_mcp_resources": True,
        "list_mcp_resource_templates": True,
        "read_mcp_resource": True,
        "mcp__a__slow1": False,
        "mcp__a__slow2": False,
    }
