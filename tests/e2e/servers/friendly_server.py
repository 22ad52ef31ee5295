"""An MCP server whose tools carry what people read: titles, a deprecated tool, a destructive one.

The popup shows the titles, marks the deprecated and destructive tools and asks before running the
destructive one. Run as `python friendly_server.py` (stdio)."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("friendly", version="1.0")
erased: list[str] = []


@mcp.tool(title="Current Time", description="Tells the time in a time zone.")
def now(zone: str) -> str:
    return f"12:00 in {zone}"


@mcp.tool(title="Read File (Deprecated)", description="Reads a file. Use read_text instead.")
def read_file(path: str) -> str:
    return f"contents of {path}"


@mcp.tool(
    title="Erase Everything",
    description="Erases all the stored notes.",
    annotations=ToolAnnotations(destructiveHint=True, readOnlyHint=False),
)
def erase(reason: str = "") -> str:
    erased.append(reason)
    return f"erased ({len(erased)} times)"


@mcp.tool(title="Wait", description="Waits, so that a person can cancel it.")
async def wait(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"waited {seconds} s"


if __name__ == "__main__":
    mcp.run()
