"""The person's controls of one MCP server, as runtime messages Python answers (docs/protocol.md, runtime
API): `servers/signIn`, `servers/signOut`, `servers/enable` (the per-server switch) and `servers/restart`
(*Retry*).

Each is one host request under a time limit decided here from the server's own config; the host's errors
keep their code and message. What a sign-out the server could not revoke leaves to the person is said here.
"""

from __future__ import annotations

from typing import Any

from core.calls.capabilities import McpCapability
from core.host_link.host_requests import ask_for_object
from core.host_link.servers import ServerBoard
from core.messages import runtime_messages as m
from core.messages.host_methods import (
    SERVERS_RESTART,
    SERVERS_SET_ENABLED,
    SERVERS_SIGN_IN,
    SERVERS_SIGN_OUT,
    EnableParams,
    ServerParams,
)

type Answer = dict[str, Any]

# How long the host waits for the person on the server's sign-in page (native_host/signin.py).
SIGN_IN_WAIT_MS = 600_000
# Room for the host to stop the server's old run before the new start is timed.
STOP_ROOM_MS = 30_000
NOT_REVOKED = (
    "Signed out here. The server offers no way to take the sign-in back: to end it there too, remove "
    "Tabgate's access in your account on the server's site."
)


def _settled_ms(servers: ServerBoard, server: str) -> int:
    """How long a control that stops and starts the server may take."""
    return STOP_ROOM_MS + servers.startup_limit_ms(server)


async def sign_in(mcp: McpCapability, servers: ServerBoard, message: m.ServersSignIn) -> Answer:
    """`{type:"servers/signIn", server}` → `{server, signedIn, status}` once the person signed in and the
    server's start settled: the person's time on the page plus the server's start."""
    limit_ms = SIGN_IN_WAIT_MS + _settled_ms(servers, message.server)
    return await ask_for_object(mcp, SERVERS_SIGN_IN, ServerParams(server=message.server), limit_ms)


async def sign_out(mcp: McpCapability, servers: ServerBoard, message: m.ServersSignOut) -> Answer:
    """`{type:"servers/signOut", server}` → `{server, signedOut, revoked, note?}`: `note` says what the
    person still has to do when the server could not take the tokens back."""
    limit_ms = _settled_ms(servers, message.server)
    answer = await ask_for_object(mcp, SERVERS_SIGN_OUT, ServerParams(server=message.server), limit_ms)
    if answer.get("signedOut") is True and answer.get("revoked") is False:
        return answer | {"note": NOT_REVOKED}
    return answer


async def enable(mcp: McpCapability, servers: ServerBoard, message: m.ServersEnable) -> Answer:
    """`{type:"servers/enable", server, enabled}` → `{server, enabled}`: written to the host's config, the
    server stopped or started."""
    params = EnableParams(server=message.server, enabled=message.enabled)
    return await ask_for_object(mcp, SERVERS_SET_ENABLED, params, _settled_ms(servers, message.server))


async def restart(mcp: McpCapability, servers: ServerBoard, message: m.ServersRestart) -> Answer:
    """`{type:"servers/restart", server}` → `{server, status}` once the new start settled."""
    limit_ms = _settled_ms(servers, message.server)
    return await ask_for_object(mcp, SERVERS_RESTART, ServerParams(server=message.server), limit_ms)
