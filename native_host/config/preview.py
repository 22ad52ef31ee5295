"""A first look at the config with the standard library only, so `initialize` can list the servers as
"starting" before pydantic and mcp are loaded; loading.py does the real validation moments later."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from core.calls.capabilities import ServerStatus, Transport

# The config's defaults and ceiling (contract §3), here so this stdlib-only first look can use them too.
DEFAULT_STARTUP_TIMEOUT_SEC: Final = 10.0
DEFAULT_TOOL_TIMEOUT_SEC: Final = 60.0
MAX_TIMEOUT_SEC: Final = 86400.0  # one day: any longer is a typo, and 1e308 would never end


def infer_transport(table: Mapping[str, object]) -> Transport:
    """codex's rule: `command` means stdio, `url` streamable HTTP; `transport = "sse"` picks legacy SSE."""
    if table.get("transport") == "sse":
        return "sse"
    if "url" in table and "command" not in table:
        return "streamable_http"
    return "stdio"


def _seconds(value: object, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIMEOUT_SEC:
        return default  # loading.py reports the problem
    return float(value)


def preview_timeouts(table: Mapping[str, object]) -> tuple[float, float]:
    """(startup, tool) seconds as far as a first look can tell."""
    startup = _seconds(table.get("startup_timeout_sec"), DEFAULT_STARTUP_TIMEOUT_SEC)
    millis = table.get("startup_timeout_ms")
    if "startup_timeout_sec" not in table and isinstance(millis, int) and not isinstance(millis, bool):
        startup = _seconds(millis / 1000, DEFAULT_STARTUP_TIMEOUT_SEC)
    return startup, _seconds(table.get("tool_timeout_sec"), DEFAULT_TOOL_TIMEOUT_SEC)


def preview_status(name: str, table: Mapping[str, object]) -> ServerStatus:
    startup, tool = preview_timeouts(table)
    return ServerStatus(
        name=name,
        transport=infer_transport(table),
        status="disabled" if table.get("enabled") is False else "starting",
        toolTimeoutSec=tool,
        startupTimeoutSec=startup,
    )


def preview_statuses(path: Path) -> list[ServerStatus]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # the engine reports the problem once it loads the config properly
    servers = data.get("mcp_servers")
    if not isinstance(servers, dict):
        return []
    return [preview_status(name, table) for name, table in servers.items() if isinstance(table, dict)]
