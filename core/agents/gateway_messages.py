"""The fields of an agent's `gateway/tools` and `gateway/call` as the gateway reads them (contract §8): the
session and the agent's identity, the tool and its arguments; and a tool as the agent's list shows it.
Their envelopes are runtime messages (core/messages/runtime_messages.py); a call whose fields do not fit is
refused
to the agent in its own answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from core.agents.identity import AgentIdentity


class SessionParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    session: StrictStr = Field(min_length=1, max_length=200)
    agent: AgentIdentity


class CallParams(SessionParams):
    name: StrictStr
    arguments: dict[str, Any] = Field(default_factory=dict)
    callId: StrictStr | None = None


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
