"""A first look at the config with the standard library only, so `initialize` can list the servers as
"starting" before pydantic and mcp are loaded; config.py does the real validation moments later."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from .status import ServerStatus, Transport


def infer_transport(table: Mapping[str, object]) -> Transport:
    """codex's rule: `command` means stdio, `url` streamable HTTP; `transport = "sse"` picks legacy SSE."""
    if table.get("transport") == "sse":
        return "sse"
    if "url" in table and "command" not in table:
        return "streamable_http"
    return "stdio"


def preview_statuses(path: Path) -> list[ServerStatus]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # the engine reports the problem once it loads the config properly
    servers = data.get("mcp_servers")
    if not isinstance(servers, dict):
        return []
    return [
        ServerStatus(
            name=name,
            transport=infer_transport(table),
            status="disabled" if table.get("enabled") is False else "starting",
        )
        for name, table in servers.items()
        if isinstance(table, dict)
    ]
