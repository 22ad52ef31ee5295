"""A low-level test MCP server with paginated tools and resources: `python paged_server.py [--repeat-cursor]`.

25 tools and 25 resources, 10 per page; with --repeat-cursor every page names the same next cursor."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

COUNT = 25
PAGE = 10
REPEAT = "--repeat-cursor" in sys.argv


def _page(params: types.PaginatedRequestParams | None) -> tuple[range, str | None]:
    start = int(params.cursor) if params and params.cursor else 0
    end = min(start + PAGE, COUNT)
    if REPEAT:
        return range(start, end), "10"
    return range(start, end), (str(end) if end < COUNT else None)


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    numbers, cursor = _page(params)
    tools = [types.Tool(name=f"tool_{n:02d}", input_schema={"type": "object"}) for n in numbers]
    return types.ListToolsResult(tools=tools, next_cursor=cursor)


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


async def list_resources(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    numbers, cursor = _page(params)
    resources = [types.Resource(uri=f"paged://r/{n}", name=f"r{n}") for n in numbers]
    return types.ListResourcesResult(resources=resources, next_cursor=cursor)


async def main() -> None:
    server = Server(
        "paged", on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources
    )
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
