"""The person's calls while they run, by call_id: the popup's Cancel stops one (any tool, browser or MCP).

A dispatch runs in a task of its own (the bridge starts one per runtime message); cancelling it cancels what
it waits for, each by its request key (a browser command list sends nothing more, a host request is cancelled
on the server), and the call ends `stopped`. Agents' calls are stopped from their own list (core/agents).
Kept as one dict entry per running call: every dispatch passes here (the hot path).
"""

from __future__ import annotations

import asyncio
from typing import Any

from core.calls.items import FunctionCallOutputItem, FunctionCallOutputPayload
from core.calls.outcome import Outcome, dispatch_answer

CANCELLED = "The call was stopped: cancelled by the person."


def stopped_answer(call_id: str) -> dict[str, Any]:
    output = FunctionCallOutputItem(call_id, FunctionCallOutputPayload(CANCELLED, success=False))
    return {**dispatch_answer(output), "outcome": Outcome.STOPPED.value}


class RunningCalls:
    def __init__(self) -> None:
        self._calls: dict[asyncio.Task[Any], str] = {}  # the task each running call runs in → its call_id
        self._cancelled: set[asyncio.Task[Any]] = set()

    def started(self, task: asyncio.Task[Any], call_id: str) -> None:
        self._calls[task] = call_id

    def ended(self, task: asyncio.Task[Any]) -> None:
        self._calls.pop(task, None)
        self._cancelled.discard(task)

    def stopped_by_person(self, task: asyncio.Task[Any]) -> bool:
        """Whether the cancellation `task` sees is the person's own Cancel (any other one goes on)."""
        return task in self._cancelled and task.uncancel() == 0

    def cancel(self, call_id: str) -> bool:
        """Cancels the running calls with that id; whether there was one."""
        tasks = [task for task, running in self._calls.items() if running == call_id]
        for task in tasks:
            self._cancelled.add(task)
            task.cancel()
        return bool(tasks)
