"""The MCP `CallToolResult` an agent receives when the host itself cannot run its call (contract §8).

Results of calls that ran come from the browser already in MCP's shape and are relayed unchanged."""

from __future__ import annotations

from typing import Any


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}
