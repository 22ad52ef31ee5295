"""An MCP server that will not stop: it ignores SIGTERM and stdin EOF, and starts two children that ignore
SIGTERM as well — one in its process group (holding its stdout open), one in a session of its own.

The tool `family` answers the three process ids."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from mcp.server.mcpserver import MCPServer

SLEEPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"

mcp = MCPServer("stubborn", version="1.0")
children: list[subprocess.Popen[bytes]] = []


@mcp.tool()
def family() -> dict[str, int]:
    """The ids of this server and its two children."""
    return {"server": os.getpid(), "child": children[0].pid, "detached": children[1].pid}


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    children.append(subprocess.Popen([sys.executable, "-c", SLEEPER], stdin=subprocess.DEVNULL))
    children.append(
        subprocess.Popen(
            [sys.executable, "-c", SLEEPER],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
    )
    mcp.run()
    time.sleep(3600)  # stdin closed: a polite server would exit here


if __name__ == "__main__":
    main()
