"""Runtime messages that show people what the host's servers hold besides tools: prompts and server logs.

Each is one host request (contract §4) under the limit the server's own config gives; the host's errors keep
their code, message and data, and a request the core gives up on answers TIMED_OUT."""

from __future__ import annotations

from typing import Any

from core.calls.capabilities import McpCapability
from core.host_link.host_requests import ask_for_object
from core.host_link.servers import ServerBoard
from core.messages import runtime_messages as m
from core.messages.host_methods import (
    PROMPTS_GET,
    PROMPTS_LIST,
    SERVERS_LOGS,
    AnyServerParams,
    PromptParams,
    ServerParams,
)


async def prompts(mcp: McpCapability, servers: ServerBoard, message: m.Prompts) -> dict[str, Any]:
    """`{type:"prompts", server?}` → the host's `prompts/list`."""
    params = AnyServerParams(server=message.server)
    if message.server is None:
        return await ask_for_object(mcp, PROMPTS_LIST, params, servers.all_servers_limit_ms())
    return await ask_for_object(mcp, PROMPTS_LIST, params, servers.request_limit_ms(message.server))


async def prompt_get(mcp: McpCapability, servers: ServerBoard, message: m.PromptGet) -> dict[str, Any]:
    """`{type:"prompt/get", server, name, arguments?}` → the host's `prompts/get`: a GetPromptResult."""
    params = PromptParams(server=message.server, name=message.name, arguments=message.arguments)
    return await ask_for_object(mcp, PROMPTS_GET, params, servers.request_limit_ms(message.server))


async def server_logs(mcp: McpCapability, servers: ServerBoard, message: m.ServerLogs) -> dict[str, Any]:
    """`{type:"server/logs", server}` → the host's `servers/logs`: answered from what the host keeps."""
    params = ServerParams(server=message.server)
    return await ask_for_object(mcp, SERVERS_LOGS, params, servers.tools_list_limit_ms())
