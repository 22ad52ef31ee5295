"""A test MCP server (MCPServer): `python demo_server.py [stdio | http PORT | sse PORT]`.

Env: DEMO_MARKERS — a folder where `slow` records that it was cancelled; DEMO_TOKEN — when set, HTTP requests
must carry `Authorization: Bearer <token>` and `X-Demo: yes`; DEMO_START_DELAY — seconds to sleep before
serving (a slow start); DEMO_EXIT_AFTER — seconds after which the process exits (a server that keeps dying);
DEMO_SECRET — what `leak` puts into its JSON-RPC error and `whoami` into its result."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer("demo", version="1.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@mcp.tool()
async def slow(seconds: float, ctx: Context, steps: int = 4, tag: str = "") -> str:
    """Sleep `seconds` in `steps` steps, reporting progress; records a cancellation under DEMO_MARKERS."""
    try:
        for step in range(steps):
            await ctx.report_progress(step, steps, f"step {step}")
            await anyio.sleep(seconds / steps)
        await ctx.report_progress(steps, steps, "done")
    except anyio.get_cancelled_exc_class():
        markers = os.environ.get("DEMO_MARKERS")
        if markers:
            (Path(markers) / f"cancelled-{tag}").write_text("cancelled")
        raise
    return f"slept {seconds}"


@mcp.tool()
def big(mib: float) -> str:
    """A text of `mib` MiB with characters JSON must escape."""
    unit = 'abc"def\\ghi\nélan😀 '
    size = int(mib * 1024 * 1024)
    return (unit * (size // len(unit.encode()) + 1))[: size // 2] + "END"


@mcp.tool()
def crash() -> str:
    """Exit the process at once, mid-call."""
    os._exit(3)


@mcp.tool()
def fail(message: str) -> str:
    """Fail with a tool error."""
    raise ToolError(message)


@mcp.tool()
def leak() -> str:
    """Answer a JSON-RPC error whose message and data hold the DEMO_SECRET value."""
    secret = os.environ.get("DEMO_SECRET", "")
    data = {"echo": secret, "list": [f"x{secret}x"]}
    raise MCPError(code=-32050, message=f"refused with {secret}", data=data)


@mcp.tool()
def whoami() -> str:
    """Say which key this server signs in with: a server showing its own configured secret (DEMO_SECRET)."""
    return f"signed in with {os.environ.get('DEMO_SECRET', '')}"


@mcp.resource("demo://static", mime_type="text/plain")
def static() -> str:
    return "static text"


@mcp.resource("demo://item/{item_id}")
def item(item_id: str) -> dict[str, Any]:
    return {"id": item_id}


@mcp.prompt()
def greet(name: str) -> str:
    return f"Say hello to {name}"


def _guarded(app: Any, token: str) -> Any:
    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if (
                headers.get(b"authorization") != f"Bearer {token}".encode()
                or headers.get(b"x-demo") != b"yes"
            ):
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    return guarded


def _exit_later(seconds: float) -> None:
    timer = threading.Timer(seconds, os._exit, args=(4,))
    timer.daemon = True
    timer.start()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    time.sleep(float(os.environ.get("DEMO_START_DELAY", "0")))
    if "DEMO_EXIT_AFTER" in os.environ:
        _exit_later(float(os.environ["DEMO_EXIT_AFTER"]))
    if mode == "stdio":
        mcp.run()
        return
    import uvicorn

    app = mcp.streamable_http_app() if mode == "http" else mcp.sse_app()
    token = os.environ.get("DEMO_TOKEN")
    uvicorn.run(
        _guarded(app, token) if token else app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning"
    )


if __name__ == "__main__":
    main()
