"""Events the core emits to every `events` port (contract §5), as plain JSON dicts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.items import CallToolResult, mcp_result_to_wire

type Emit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class McpInvocation:
    server: str
    tool: str
    arguments: Any

    def to_wire(self) -> dict[str, Any]:
        return {"server": self.server, "tool": self.tool, "arguments": self.arguments}


def mcp_call_begin(call_id: str, invocation: McpInvocation) -> dict[str, Any]:
    return {"type": "McpToolCallBegin", "call_id": call_id, "invocation": invocation.to_wire()}


def mcp_call_end(
    call_id: str, invocation: McpInvocation, duration_s: float, result: CallToolResult | str
) -> dict[str, Any]:
    return {
        "type": "McpToolCallEnd",
        "call_id": call_id,
        "invocation": invocation.to_wire(),
        "duration_ms": round(duration_s * 1000),
        "result": mcp_result_to_wire(result),
    }


def plan_update(explanation: str | None, plan: list[dict[str, str]]) -> dict[str, Any]:
    return {"type": "PlanUpdate", "explanation": explanation, "plan": plan}
