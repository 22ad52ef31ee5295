"""The answers for a tool name that cannot run here (contract §6, codex-chrome's MCP guard)."""

from __future__ import annotations

from enum import Enum

from core.calls.capabilities import ServerStatus
from core.calls.errors import RespondToModel
from core.host_link.servers import why_down


class McpAccess(Enum):
    NO_HOST = "no_host"
    DISABLED = "disabled"
    ENABLED = "enabled"


def mcp_access(*, host_connected: bool, mcp_tools_enabled: bool) -> McpAccess:
    if not host_connected:
        return McpAccess.NO_HOST
    return McpAccess.ENABLED if mcp_tools_enabled else McpAccess.DISABLED


def unknown_tool(
    name: str, access: McpAccess, *, custom: bool, mcp_error: str | None = None
) -> RespondToModel:
    """A name that is no built-in, no browser tool and no usable MCP tool; it never reaches the host.

    `mcp_error` says why the MCP tool table is missing, when it could not be fetched: the name may be a
    tool the host has, so the model is told the list was unavailable rather than only "unsupported"."""
    if access is McpAccess.NO_HOST:
        return RespondToModel(f"MCP tools not supported in browser extension. Tool '{name}' not found.")
    if access is McpAccess.DISABLED:
        return RespondToModel(f"Tool '{name}' not available (mcpTools disabled in config)")
    message = f"unsupported custom tool call: {name}" if custom else f"unsupported call: {name}"
    if mcp_error is not None:
        message += f" (the MCP tool list is unavailable: {mcp_error})"
    return RespondToModel(message)


def disabled_tool(name: str) -> RespondToModel:
    return RespondToModel(f"Tool '{name}' not available (disabled in config)")


def server_down(status: ServerStatus) -> RespondToModel:
    """A name of a configured server that is down and whose tools were never known (failed at first start)."""
    return RespondToModel(why_down(status))
