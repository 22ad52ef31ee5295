"""An MCP server whose names, descriptions and results carry HTML and script text.

The popup must show all of it as text and run none of it. Run as `python hostile_server.py` (stdio)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

IMG = '<img src=x onerror="window.__tabgatePwned=1">'
SCRIPT = "<script>window.__tabgatePwned=2</script>"

mcp = MCPServer("hostile", version="1.0")


@mcp.tool(description=f"Returns markup. {IMG}")
def markup() -> str:
    """Returns text that would run script if it were inserted as HTML."""
    return f"{IMG} and {SCRIPT} and <b>bold?</b>"


if __name__ == "__main__":
    mcp.run()
