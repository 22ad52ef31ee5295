"""Runtime messages that show people what the host's servers hold besides tools: prompts and server logs.

Each is one host request (contract §4) under the limit the server's own config gives; the host's errors keep
their code, message and data, and a request the core gives up on answers TIMED_OUT."""

from __future__ import annotations

from typing import Any

from core.calls.capabilities import McpCapability
from core.host_link.host_requests import HostMessage, ask_for_object, parse_message
from core.host_link.servers import ServerBoard


class PromptsMessage(HostMessage):
    server: str | None = None


class PromptGetMessage(HostMessage):
    server: str
    name: str
    arguments: dict[str, str] | None = None


class ServerLogsMessage(HostMessage):
    server: str


async def prompts(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"prompts", server?}` → the host's `prompts/list`."""
    parsed = parse_message(PromptsMessage, message)
    if parsed.server is None:
        return await ask_for_object(mcp, "prompts/list", {}, servers.all_servers_limit_ms())
    return await ask_for_object(
        mcp, "prompts/list", {"server": parsed.server}, servers.request_limit_ms(parsed.server)
    )


async def prompt_get(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"prompt/get", server, name, arguments?}` → the host's `prompts/get`: a GetPromptResult."""
    parsed = parse_message(PromptGetMessage, message)
    params: dict[str, Any] = {"server": parsed.server, "name": parsed.name}
    if parsed.arguments is not None:
        params["arguments"] = parsed.arguments
    return await ask_for_object(mcp, "prompts/get", params, servers.request_limit_ms(parsed.server))


async def server_logs(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"server/logs", server}` → the host's `servers/logs`: answered from what the host keeps."""
    parsed = parse_message(ServerLogsMessage, message)
    return await ask_for_object(mcp, "servers/logs", {"server": parsed.server}, servers.tools_list_limit_ms())
