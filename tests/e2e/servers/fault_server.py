"""An MCP server for the fault tier: `python fault_server.py` (stdio).

Tools: `echo`, `pid` (its process id, so a test can kill it), `sleep`, `blob` (a result of an exact size whose
content the caller can check line by line), `crash` (exits mid-call).

Env FAULT_GATE: a file path; while that file exists the server exits at start, so a test can hold it down
for as long as it needs and then let it come back."""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

LINE = 10  # blob lines are "%09d\n": line k starts at byte 10·k and holds k


@lru_cache(maxsize=2)  # repeated calls for the same size cost the server nothing
def blob_text(size: int) -> str:
    """`size` ASCII bytes: line k holds k zero-padded to 9 digits, then a newline; '.' pads the tail."""
    lines = size // LINE
    return "".join(f"{k:09d}\n" for k in range(lines)) + "." * (size - lines * LINE)


mcp = MCPServer("fault", version="1.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@mcp.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Answer after `seconds`."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


# Unstructured: a structured copy would double the result's size on the wire.
@mcp.tool(structured_output=False)
def blob(size: int) -> str:
    """Exactly `size` bytes of checkable text (see blob_text)."""
    return blob_text(size)


@mcp.tool()
def crash() -> str:
    """Exit the process at once, mid-call."""
    os._exit(3)


def main() -> None:
    gate = os.environ.get("FAULT_GATE")
    if gate and Path(gate).exists():
        print(f"fault server held down by {gate}", file=sys.stderr)
        sys.exit(1)
    mcp.run()


if __name__ == "__main__":
    main()
