"""A tool as an agent's `tools/list` shows it (contract §8). The `gateway/tools` and `gateway/call` messages
themselves are runtime messages (core/messages/runtime_messages.py)."""

from __future__ import annotations

from typing import Any


def listed_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """One tool of the runtime API's `tools` as an MCP `Tool` in the agent's `tools/list`."""
    entry = {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "inputSchema": tool.get("parameters", {"type": "object"}),
    }
    if isinstance(tool.get("annotations"), dict):
        entry["annotations"] = tool["annotations"]
    return entry
