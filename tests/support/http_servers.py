"""Our test MCP servers over HTTP: a script started on a free 127.0.0.1 port, waited for, killed after."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVERS = Path(__file__).parent.parent / "host" / "servers"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(script: str, mode: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`python <script> <mode> <port>` under uvicorn; yields the server's origin (http://127.0.0.1:<port>)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / script), mode, str(port)],
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    err = process.stderr.read().decode() if process.stderr else ""
                    raise RuntimeError(f"{script} ({mode}) did not start on port {port}: {err}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait()


def endpoint(origin: str, mode: str) -> str:
    """The MCP endpoint of a server `serving` started: /mcp for streamable HTTP, /sse for SSE."""
    return f"{origin}/{'mcp' if mode == 'http' else 'sse'}"
