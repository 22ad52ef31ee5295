"""A test MCP server that shows a value in another form: `python encoding_server.py`.

Its one tool, `show {form, value?}`, answers `value` (without one, the environment's ENC_SECRET) encoded as
`form` (see FORMS), inside ordinary text; the form `split` answers two text blocks, the value's first half
ending one and its second half starting the next.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server


def _inside_base64(lead: str) -> Callable[[str], str]:
    # The value inside a longer text that is base64-encoded whole: `lead` sets its byte alignment.
    return lambda value: base64.b64encode(f"{lead}user={value};ok".encode()).decode()


FORMS: dict[str, Callable[[str], str]] = {
    "base64": lambda value: base64.b64encode(value.encode()).decode(),
    "base64url": lambda value: base64.urlsafe_b64encode(value.encode()).decode().rstrip("="),
    "base64-inside-0": _inside_base64(""),
    "base64-inside-1": _inside_base64("a"),
    "base64-inside-2": _inside_base64("ab"),
    "base64-wrapped": lambda value: base64.encodebytes((value * 4).encode()).decode(),  # lines of 76
    "hex": lambda value: value.encode().hex(),
    "HEX": lambda value: value.encode().hex().upper(),
    "url": lambda value: quote(value, safe=""),
    "zero-width": lambda value: "\u200b".join(value[i : i + 3] for i in range(0, len(value), 3)),
    "spaced": lambda value: " \n".join(value[i : i + 5] for i in range(0, len(value), 5)),
}


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"value": {"type": "string"}, "form": {"type": "string"}}}
    return types.ListToolsResult(tools=[types.Tool(name="show", input_schema=schema)])


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    arguments = params.arguments or {}
    value, form = str(arguments.get("value", os.environ["ENC_SECRET"])), str(arguments["form"])
    if form == "split":
        half = len(value) // 2
        blocks = [_text(f"token: {value[:half]}"), _text(f"{value[half:]} (end)")]
        return types.CallToolResult(content=blocks)
    return types.CallToolResult(content=[_text(f"token: {FORMS[form](value)} (end)")])


async def main() -> None:
    server = Server("encoding", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
