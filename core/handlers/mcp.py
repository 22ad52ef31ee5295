"""MCP tool calls (codex `handlers/mcp.rs` + `mcp_tool_call.rs`): one host `tools/call` per model call."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from pydantic import ValidationError

from core.arguments import InvalidJson, parse_json_arguments
from core.capabilities import McpCapability, McpRequestError
from core.deadline import DeadlineExceeded, within
from core.errors import RespondToModel
from core.events import CANCELLED, Emit, McpCallSpan, McpInvocation
from core.items import (
    CallToolResult,
    FunctionCallOutputItem,
    FunctionCallOutputPayload,
    McpToolCallOutputItem,
    ResponseInputItem,
)
from core.output import FunctionOutput, McpOutput, ToolOutput
from core.payload import McpPayload, PayloadKind, ToolCall
from core.validation import format_validation_error

# codex DEFAULT_TOOL_TIMEOUT, used for resource calls. Tool calls send no `timeoutMs` unless one is given:
# the host applies each server's `tool_timeout_sec` (default 60 s), which only the user's config knows.
DEFAULT_TOOL_TIMEOUT_MS = 60_000
# Without an explicit limit we still stop waiting at some point, should the host never answer at all;
# it matches the service worker's own limit for one call.
HOST_SILENCE_LIMIT_MS = 600_000
# Our own bound waits this much longer, so the host's timeout error (with its reason) normally wins.
LOCAL_TIMEOUT_MARGIN_MS = 5_000


class McpToolCaller(Protocol):
    async def __call__(self, call_id: str, server: str, tool: str, raw_arguments: str) -> ResponseInputItem:
        """codex `handle_mcp_tool_call`: every failure comes back already encoded for the model."""
        ...


class McpToolCall:
    """Runs one MCP tool call through the host, with begin/end events and a time limit."""

    def __init__(
        self,
        mcp: McpCapability,
        emit: Emit,
        *,
        timeout_ms: int | None = None,
        margin_ms: int = LOCAL_TIMEOUT_MARGIN_MS,
    ) -> None:
        self._mcp = mcp
        self._emit = emit
        self._timeout_ms = timeout_ms
        self._margin_ms = margin_ms

    async def __call__(self, call_id: str, server: str, tool: str, raw_arguments: str) -> ResponseInputItem:
        try:
            arguments = parse_json_arguments(raw_arguments)
        except InvalidJson as error:
            # As codex: bad JSON never reaches the server and emits no events.
            return FunctionCallOutputItem(
                call_id=call_id, output=FunctionCallOutputPayload(content=f"err: {error}", success=False)
            )
        invocation = McpInvocation(server, tool, arguments)
        span = McpCallSpan(self._emit, call_id, invocation)
        try:
            result = await self._call(call_id, invocation)
        except asyncio.CancelledError:
            span.end(CANCELLED)
            raise
        span.end(result)
        return McpToolCallOutputItem(call_id=call_id, result=result)

    async def _call(self, call_id: str, invocation: McpInvocation) -> CallToolResult | str:
        params: dict[str, Any] = {"server": invocation.server, "tool": invocation.tool}
        if self._timeout_ms is not None:
            params["timeoutMs"] = self._timeout_ms
        if invocation.arguments is not None:
            params["arguments"] = invocation.arguments
        request = self._mcp.request("tools/call", params, call_id=call_id)
        limit_ms = self._timeout_ms if self._timeout_ms is not None else HOST_SILENCE_LIMIT_MS
        try:
            raw = await within(request, limit_ms + self._margin_ms)
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
        response = await self._call_tool(call.call_id, payload.server, payload.tool, payload.raw_arguments)
        if isinstance(response, McpToolCallOutputItem):
            return McpOutput(response.result)
        if isinstance(response, FunctionCallOutputItem):
            output = response.output
            return FunctionOutput(output.content, output.success, output.content_items)
        raise RespondToModel("mcp handler received unexpected response variant")
