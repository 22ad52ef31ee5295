"""The tool router (codex `router.rs`): model item → tool call → registry → the item that goes back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from core.calls.errors import Fatal, FunctionCallError, MissingLocalShellCallId
from core.calls.items import (
    CustomToolCallItem,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    FunctionCallOutputPayload,
    ResponseInputItem,
    ResponseItem,
)
from core.calls.output import response_item
from core.calls.payload import (
    CustomPayload,
    FunctionPayload,
    LocalShellPayload,
    McpPayload,
    ShellToolCallParams,
    ToolCall,
)
from core.host_link.mcp_tools import McpTool
from core.tools.handlers.local_shell import LOCAL_SHELL
from core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from core.calls.tab_scope import CallTarget


def build_tool_call(item: ResponseItem, mcp_tools: Mapping[str, McpTool]) -> ToolCall:
    """An MCP call is recognised by looking its full name up in the current MCP tool table."""
    if isinstance(item, FunctionCallItem):
        mcp_tool = mcp_tools.get(item.name)
        if mcp_tool is not None:
            return ToolCall(
                item.name, item.call_id, McpPayload(mcp_tool.server, mcp_tool.tool, item.arguments)
            )
        return ToolCall(item.name, item.call_id, FunctionPayload(item.arguments))
    if isinstance(item, CustomToolCallItem):
        return ToolCall(item.name, item.call_id, CustomPayload(item.input))
    call_id = item.call_id or item.id
    if not call_id:
        raise MissingLocalShellCallId()
    action = item.action
    params = ShellToolCallParams(
        command=tuple(action.command), workdir=action.working_directory, timeout_ms=action.timeout_ms
    )
    return ToolCall(LOCAL_SHELL.name, call_id, LocalShellPayload(params))


def tool_name_of(item: ResponseItem) -> str:
    """The registry name an item is looked up under."""
    if isinstance(item, FunctionCallItem | CustomToolCallItem):
        return item.name
    return LOCAL_SHELL.name


async def dispatch_tool_call(
    registry: ToolRegistry, call: ToolCall, turn: str | None = None
) -> ResponseInputItem:
    """`Fatal` propagates; every other error becomes the failed output the model sees."""
    custom = isinstance(call.payload, CustomPayload)
    try:
        output = await registry.dispatch(call, turn)
    except Fatal:
        raise
    except FunctionCallError as error:
        return failure_response(call.call_id, custom, error)
    return response_item(call.call_id, output, custom=custom)


def failure_response(call_id: str, custom: bool, error: FunctionCallError) -> ResponseInputItem:
    message = str(error)
    if custom:
        return CustomToolCallOutputItem(call_id=call_id, output=message, success=False)
    return FunctionCallOutputItem(
        call_id=call_id, output=FunctionCallOutputPayload(content=message, success=False)
    )


async def handle_response_item(
    item: ResponseItem,
    registry: ToolRegistry,
    turn: str | None = None,
    target: CallTarget | None = None,
) -> ResponseInputItem:
    """One model item through the router, answered the way codex's turn loop answers it; `turn` picks the
    parallel gate the call shares with the other calls of its turn; `target` goes with the call to the
    browser tools (the tabs and site its caller may use)."""
    try:
        call = build_tool_call(item, registry.mcp_tools)
    except MissingLocalShellCallId as error:
        # codex answers with an empty call_id and no success flag: there is no call to attach it to.
        return FunctionCallOutputItem(
            call_id="", output=FunctionCallOutputPayload(content=str(error), success=None)
        )
    return await dispatch_tool_call(registry, replace(call, target=target) if target else call, turn)
