"""The person's calls while they run, by call_id: the popup's Cancel stops one (any tool, browser or MCP).

A dispatch runs in a task of its own (the bridge starts one per runtime message); cancelling it cancels what
it waits for, each by its request key (a browser command list sends nothing more, a host request is cancelled
on the server), and the call ends `stopped`. Agents' calls are stopped from their own list (core/agents).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from core.calls.items import FunctionCallOutputItem, FunctionCallOutputPayload
from core.calls.outcome import Outcome

CANCELLED = "The call was stopped: cancelled by the person."


def stopped_answer(call_id: str) -> dict[str, Any]:
    output = FunctionCallOutputItem(call_id, FunctionCallOutputPayload(CANCELLED, success=False))
    return {"output": output.to_wire(), "success": False, "outcome": Outcome.STOPPED.value}


class RunningCalls:
    def __init__(self) -> None:
        self._tasks: dict[str, set[asyncio.Task[Any]]] = {}
        self._cancelled: set[asyncio.Task[Any]] = set()

    async def run(self, call_id: str | None, work: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        """`work`'s answer; once `cancel(call_id)` stopped it, the stopped answer."""
        task = asyncio.current_task()
        if call_id is None or task is None:
            return await work
        self._tasks.setdefault(call_id, set()).add(task)
        try:
            return await work
        except asyncio.CancelledError:
            # Only the person's own Cancel ends in the call's answer; any other cancellation goes on.
            if task not in self._cancelled or task.uncancel() > 0:
                raise
            return stopped_answer(call_id)
        finally:
            self._cancelled.discard(task)
            tasks = self._tasks.get(call_id, set())
            tasks.discard(task)
            if not tasks:
                self._tasks.pop(call_id, None)

    def cancel(self, call_id: str) -> bool:
        """Cancels the running calls with that id; whether there was one."""
        tasks = self._tasks.get(call_id, set())
        for task in tasks:
            self._cancelled.add(task)
            task.cancel()
        return bool(tasks)
