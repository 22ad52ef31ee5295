"""MCP tool calls (codex `handlers/mcp.rs` + `mcp_tool_call.rs`): one host `tools/call` per model call."""

from __future__ import annotations

import asyncio
from typing import Protocol

from pydantic import ValidationError

from core.calls.arguments import InvalidJson, parse_json_arguments
from core.calls.capabilities import McpCapability, McpRequestError
from core.calls.deadline import DeadlineExceeded
from core.calls.errors import RespondToModel
from core.calls.items import (
    CallToolResult,
)
from core.calls.output import FunctionOutput, McpOutput, ToolOutput
from core.calls.payload import McpPayload, PayloadKind, ToolCall
from core.calls.validation import format_validation_error
from core.consent.acting_gate import check_acting
from core.host_link.host_requests import ask_host
from core.host_link.servers import ServerBoard
from core.messages.emit import CANCELLED, Emit, McpCallSpan
from core.messages.event_messages import McpInvocation
from core.messages.host_methods import TOOLS_CALL, CallParams


class McpToolCaller(Protocol):
    async def __call__(self, call_id: str, server: str, tool: str, raw_arguments: str) -> ToolOutput:
        """codex `handle_mcp_tool_call`: every failure comes back as an output for the model (the router
        makes the one response item of it)."""
        ...


class McpToolCall:
    """Runs one MCP tool call through the host, with begin/end events and the server's own time limit.

    The host applies the server's `tool_timeout_sec` itself; the core waits that long (plus the startup
    timeout while the server is not ready) and a margin, then gives up and the host request is cancelled.
    """

    def __init__(self, mcp: McpCapability, emit: Emit, servers: ServerBoard) -> None:
        self._mcp = mcp
        self._emit = emit
        self._servers = servers

    async def __call__(self, call_id: str, server: str, tool: str, raw_arguments: str) -> ToolOutput:
        try:
            arguments = parse_json_arguments(raw_arguments)
        except InvalidJson as error:
            # As codex: bad JSON never reaches the server and emits no events.
            return FunctionOutput(f"err: {error}", success=False)
        invocation = McpInvocation(server=server, tool=tool, arguments=arguments)
        span = McpCallSpan(self._emit, call_id, invocation)
        try:
            result = await self._call(call_id, invocation)
        except asyncio.CancelledError:
            span.end(CANCELLED)
            raise
        span.end(result)
        return McpOutput(result)

    async def _call(self, call_id: str, invocation: McpInvocation) -> CallToolResult | str:
        limit_ms = self._servers.request_limit_ms(invocation.server)
        try:
            check_acting()  # an agent's call stops here once the person paused agents
        except RespondToModel as stopped:
            return str(stopped)
        try:
            params = CallParams(
                server=invocation.server, tool=invocation.tool, arguments=invocation.arguments
            )
        except ValidationError as error:  # arguments that are JSON but not an object
            return f"tool call error: {TOOLS_CALL.name}: {format_validation_error(error)}"
        try:
            raw = await ask_host(self._mcp, TOOLS_CALL, params, limit_ms=limit_ms, call_id=call_id)
        except McpRequestError as error:
            return f"tool call error: {error}"
        except DeadlineExceeded as error:
            return f"tool call error: no answer from the native host, {error}"
        try:
            return CallToolResult.model_validate(raw)
        except ValidationError as error:
            return f"tool call error: invalid CallToolResult from the host: {format_validation_error(error)}"


class McpHandler:
    accepts = frozenset({PayloadKind.MCP})

    def __init__(self, call_tool: McpToolCaller) -> None:
        self._call_tool = call_tool

    async def handle(self, call: ToolCall) -> ToolOutput:
        payload = call.payload
        if not isinstance(payload, McpPayload):
            raise RespondToModel("mcp handler received unsupported payload")
        return await self._call_tool(call.call_id, payload.server, payload.tool, payload.raw_arguments)
