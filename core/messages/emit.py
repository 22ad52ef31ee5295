"""Events the core emits to every `events` port (contract §5): built from their models
(core/messages/event_messages.py), sent as plain JSON dicts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.calls.items import CallToolResult, mcp_result_to_wire
from core.messages.event_messages import McpInvocation, McpToolCallBegin, McpToolCallEnd, PlanUpdate

type Emit = Callable[[dict[str, Any]], None]

CANCELLED = "tool call cancelled"


class McpCallSpan:
    """`McpToolCallBegin` when created, `McpToolCallEnd` with the duration and result when ended."""

    def __init__(self, emit: Emit, call_id: str, invocation: McpInvocation) -> None:
        self._emit = emit
        self._call_id = call_id
        self._invocation = invocation
        emit(McpToolCallBegin(call_id=call_id, invocation=invocation).to_wire())
        self._started = time.perf_counter()

    def end(self, result: CallToolResult | str) -> None:
        end = McpToolCallEnd(
            call_id=self._call_id,
            invocation=self._invocation,
            duration_ms=round((time.perf_counter() - self._started) * 1000),
            result=mcp_result_to_wire(result),
        )
        self._emit(end.to_wire())


def plan_update(plan: dict[str, Any]) -> dict[str, Any]:
    # `plan` is UpdatePlanArgs' wire form, checked as the call's arguments: not validated a second time.
    return {"type": PlanUpdate.TYPE, **plan}
