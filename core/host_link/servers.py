"""What the core knows of the host's servers (contract §4 `ServerStatus`): state, time limits, why down.

The statuses come from the service worker (`host/state`, `host/servers`, the `hostEnsure` answer). Every
core→host request waits as long as the server's own config says (`toolTimeoutSec`, `startupTimeoutSec`)
plus a margin, so the host's own timeout error, with its reason, normally arrives first.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Protocol

from pydantic import TypeAdapter, ValidationError

from core.calls.capabilities import McpCapability, ServerState, ServerStatus
from core.calls.names import MCP_TOOL_NAME_DELIMITER, MCP_TOOL_NAME_PREFIX, sanitize_tool_name

log = logging.getLogger(__name__)

# codex's defaults, for a host that does not say (DEFAULT_TOOL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT).
DEFAULT_TOOL_TIMEOUT_SEC = 60.0
DEFAULT_STARTUP_TIMEOUT_SEC = 10.0
# The host answers every listing within 1 s (contract §4): it never waits longer for a starting server.
LISTING_WAIT_MS = 1_000
# How much longer than the host's own limit the core waits before it gives up and cancels the request.
TIMEOUT_MARGIN_MS = 5_000
# setTimeout's largest delay; a config of `1e308` seconds must not overflow a timer (or become `inf`).
MAX_WAIT_MS = 2**31 - 1

# Checks a `ServerStatus` from the service worker (keys the contract does not name are dropped).
_STATUS: Final = TypeAdapter(ServerStatus)


def tool_timeout_ms(status: ServerStatus) -> float:
    return _ms(status.get("toolTimeoutSec"), DEFAULT_TOOL_TIMEOUT_SEC)


def startup_timeout_ms(status: ServerStatus) -> float:
    return _ms(status.get("startupTimeoutSec"), DEFAULT_STARTUP_TIMEOUT_SEC)


def is_down(status: ServerStatus) -> bool:
    return status["status"] != "ready"


def why_down(status: ServerStatus) -> str:
    """The reason a call to this server cannot run now, in the host's own words where it gave some."""
    return unavailable_message(status["name"], status["status"], status.get("error"), status.get("retryInMs"))


def unavailable_message(name: str, state: ServerState, error: str | None, retry_in_ms: float | None) -> str:
    """Why a request to server `name` cannot run now: the one sentence, answered by the host (-32000) and said
    again by the core from the server's status. `retry_in_ms` is absent while the next start runs."""
    if state == "starting":
        return f"server '{name}' is unavailable: still starting"
    if state == "disabled":
        return f"server '{name}' is unavailable: disabled in the config (enabled = false)"
    reason = error or ("not running" if state == "failed" else "connection closed")
    message = f"server '{name}' is unavailable: {reason}"
    if state == "restarting":
        when = "now" if retry_in_ms is None else f"in {max(1, math.ceil(retry_in_ms / 1000))} s"
        message += f"; restarting {when}"
    return message


def _ms(seconds: float | None, default: float) -> float:
    value = default if seconds is None or seconds <= 0 else seconds
    return min(value * 1000, MAX_WAIT_MS)


def clamp_ms(value: float) -> int:
    return int(min(value, MAX_WAIT_MS))


def parse_statuses(raw: object) -> tuple[ServerStatus, ...]:
    """The valid entries of a `servers` list; an invalid one is logged and left out, never fatal."""
    if not isinstance(raw, list):
        return ()
    statuses = []
    for entry in raw:
        try:
            statuses.append(_STATUS.validate_python(entry))
        except ValidationError as error:
            log.warning("ignoring an invalid server status %r: %s", entry, error)
    return tuple(statuses)


@dataclass(frozen=True, slots=True)
class HostState:
    """The `hostEnsure` answer: is a native host connected, and how are its servers."""

    connected: bool
    servers: tuple[ServerStatus, ...] = ()

    @classmethod
    def from_wire(cls, raw: Any) -> HostState:
        if not isinstance(raw, dict):
            return cls(connected=False)
        return cls(connected=raw.get("connected") is True, servers=parse_statuses(raw.get("servers")))


class HostLink(McpCapability, Protocol):
    """The way to the native host through the service worker, whether or not a host is connected now (a
    capability the core is given, as those in core/calls/capabilities.py)."""

    async def ensure(self) -> HostState:
        """(Re)connect the host if needed and say whether it is connected, with its server statuses."""
        ...


class ServerBoard:
    """The latest statuses by server name; shared by the handlers, updated in place when the host says."""

    def __init__(self, *, margin_ms: int = TIMEOUT_MARGIN_MS) -> None:
        self._servers: dict[str, ServerStatus] = {}
        self._margin_ms = margin_ms
        self._changed = asyncio.Event()

    def update(self, statuses: Iterable[ServerStatus]) -> None:
        self._servers = {status["name"]: status for status in statuses}
        self._changed.set()  # wakes whoever waits for a status; later waits get a fresh event
        self._changed = asyncio.Event()

    async def started(self, server: str) -> None:
        """Return once `server` is no longer `starting` (the caller bounds the wait)."""
        while (status := self._servers.get(server)) is not None and status["status"] == "starting":
            await self._changed.wait()

    def startup_limit_ms(self, server: str) -> int:
        status = self._servers.get(server)
        startup = startup_timeout_ms(status) if status is not None else DEFAULT_STARTUP_TIMEOUT_SEC * 1000
        return clamp_ms(startup + self._margin_ms)

    def get(self, server: str) -> ServerStatus | None:
        return self._servers.get(server)

    def request_limit_ms(self, server: str) -> int:
        """A request to one server: its tool timeout, and its startup timeout too while it is not ready
        (the host starts a server that is down on its next use)."""
        status = self._servers.get(server)
        if status is None:
            return clamp_ms(DEFAULT_TOOL_TIMEOUT_SEC * 1000 + self._margin_ms)
        limit = tool_timeout_ms(status) + self._margin_ms
        if is_down(status):
            limit += startup_timeout_ms(status)
        return clamp_ms(limit)

    def all_servers_limit_ms(self) -> int:
        """A request the host sends to every server (all-servers resource listings): the slowest one's
        tool timeout; the host waits at most `LISTING_WAIT_MS` for servers that are not ready."""
        slowest = max(
            (tool_timeout_ms(status) for status in self._servers.values()),
            default=DEFAULT_TOOL_TIMEOUT_SEC * 1000,
        )
        return clamp_ms(slowest + LISTING_WAIT_MS + self._margin_ms)

    def tools_list_limit_ms(self) -> int:
        """`tools/list` comes from the host's own table, within `LISTING_WAIT_MS` by contract."""
        return LISTING_WAIT_MS + self._margin_ms

    def down_server_for(self, name: str) -> ServerStatus | None:
        """The down server a model-visible name `mcp__<server>__…` belongs to, by prefix over the configured
        server names (the longest wins); used only for names missing from the tool table."""
        best: ServerStatus | None = None
        best_length = -1
        for status in self._servers.values():
            prefix = sanitize_tool_name(
                f"{MCP_TOOL_NAME_PREFIX}{MCP_TOOL_NAME_DELIMITER}{status['name']}{MCP_TOOL_NAME_DELIMITER}"
            )
            if is_down(status) and name.startswith(prefix) and len(prefix) > best_length:
                best, best_length = status, len(prefix)
        return best
