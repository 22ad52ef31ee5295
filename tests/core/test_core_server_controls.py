"""The person's controls of one server (core/host_link/server_controls.py): sign in, sign out, the switch and
Retry are
runtime messages Python answers with one host request each, under a limit from the server's own config."""

from __future__ import annotations

from typing import Any

import pytest

from core.calls.capabilities import McpErrorCode, McpRequestError
from core.host_link.server_controls import (
    NOT_REVOKED,
    SIGN_IN_WAIT_MS,
    STOP_ROOM_MS,
    enable,
    restart,
    sign_in,
    sign_out,
)
from core.host_link.servers import ServerBoard
from core.messages.runtime_messages import parse_runtime_message

pytestmark = pytest.mark.unit


class Host:
    """The host's side: answers each method with what it is given, and records every request."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.requests: list[tuple[str, dict[str, Any], int]] = []

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        self.requests.append((method, params, timeout_ms))
        answer = self.answers[method]
        if isinstance(answer, Exception):
            raise answer
        return answer


def board() -> ServerBoard:
    return ServerBoard(margin_ms=0)


CONTROLS: dict[str, Any] = {
    "servers/enable": enable,
    "servers/signIn": sign_in,
    "servers/signOut": sign_out,
    "servers/restart": restart,
}


async def control(kind: str, host: Host, **fields: Any) -> dict[str, Any]:
    """The runtime message as the service parses it, answered by its control."""
    answer: dict[str, Any] = await CONTROLS[kind](
        host, board(), parse_runtime_message({"type": kind, **fields})
    )
    return answer


async def test_the_switch_is_the_hosts_set_enabled_for_that_server() -> None:
    host = Host({"servers/setEnabled": {"server": "notes", "enabled": False}})
    assert await control("servers/enable", host, server="notes", enabled=False) == {
        "server": "notes",
        "enabled": False,
    }
    method, params, limit_ms = host.requests[0]
    assert (method, params) == ("servers/setEnabled", {"server": "notes", "enabled": False})
    assert limit_ms == STOP_ROOM_MS + board().startup_limit_ms("notes")


async def test_a_sign_in_waits_for_the_person_and_then_the_servers_start() -> None:
    host = Host({"servers/signIn": {"server": "x", "signedIn": True, "status": "ready"}})
    assert (await control("servers/signIn", host, server="x"))["signedIn"] is True
    assert host.requests[0][2] == SIGN_IN_WAIT_MS + STOP_ROOM_MS + board().startup_limit_ms("x")


async def test_a_sign_out_the_server_could_not_revoke_says_what_the_person_still_has_to_do() -> None:
    host = Host({"servers/signOut": {"server": "x", "signedOut": True, "revoked": False}})
    assert (await control("servers/signOut", host, server="x"))["note"] == NOT_REVOKED
    host = Host({"servers/signOut": {"server": "x", "signedOut": True, "revoked": True}})
    assert "note" not in await control("servers/signOut", host, server="x")


async def test_retry_is_the_hosts_restart() -> None:
    host = Host({"servers/restart": {"server": "x", "status": {"status": "ready"}}})
    assert (await control("servers/restart", host, server="x"))["server"] == "x"
    assert [r[0] for r in host.requests] == ["servers/restart"]


async def test_the_hosts_refusal_keeps_its_code_and_message() -> None:
    host = Host({"servers/restart": McpRequestError(McpErrorCode.UNKNOWN_SERVER, "unknown server 'x'")})
    with pytest.raises(McpRequestError) as refused:
        await control("servers/restart", host, server="x")
    assert (refused.value.code, refused.value.message) == (-32011, "unknown server 'x'")


@pytest.mark.parametrize(
    ("kind", "fields", "named"),
    [
        ("servers/enable", {"server": "x", "enabled": "yes"}, "enabled"),
        ("servers/enable", {"server": "x"}, "enabled"),
        ("servers/signIn", {"server": 5}, "server"),
        ("servers/restart", {}, "server"),
    ],
)
async def test_a_malformed_control_is_refused_naming_the_field_and_nothing_is_sent(
    kind: str, fields: dict[str, Any], named: str
) -> None:
    host = Host({})
    with pytest.raises(McpRequestError) as refused:
        await control(kind, host, **fields)
    assert refused.value.code == McpErrorCode.INVALID_PARAMS
    assert refused.value.message.startswith(f"{kind}: ") and named in refused.value.message
    assert host.requests == []


async def test_the_hosts_refusal_reaches_the_page_with_its_data() -> None:
    data = {"server": "notes", "retryInMs": 500}
    host = Host(
        {"servers/restart": McpRequestError(McpErrorCode.SERVER_UNAVAILABLE, "notes is restarting", data)}
    )
    with pytest.raises(McpRequestError) as refused:
        await control("servers/restart", host, server="notes")
    assert refused.value.to_wire() == {
        "error": {"code": McpErrorCode.SERVER_UNAVAILABLE, "message": "notes is restarting", "data": data}
    }
