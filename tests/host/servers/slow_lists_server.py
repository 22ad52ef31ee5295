"""A low-level test MCP server whose listings and reads never finish: `python slow_lists_server.py MARKERS`.

resources/list, resources/templates/list, resources/read and prompts/list each write `started-<method>` into
the MARKERS folder, sleep, and write `cancelled-<method>` when the client cancels them.
It has one quick tool, so it becomes ready like any server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

MARKERS = Path(sys.argv[1])


async def _forever(method: str) -> None:
    (MARKERS / f"started-{method}").write_text("started")
    try:
        await anyio.sleep(3600)
    except anyio.get_cancelled_exc_class():
        (MARKERS / f"cancelled-{method}").write_text("cancelled")
        raise


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name="quick", input_schema={"type": "object"})])


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


async def list_resources(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    await _forever("resources-list")
    raise AssertionError("unreachable")


async def list_templates(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    await _forever("templates-list")
    raise AssertionError("unreachable")


async def read_resource(
    ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    await _forever("resources-read")
    raise AssertionError("unreachable")


async def list_prompts(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    await _forever("prompts-list")
    raise AssertionError("unreachable")


async def main() -> None:
    server = Server(
        "slow-lists",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
    )
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
