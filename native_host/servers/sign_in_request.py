"""The request that carries a sign-in and confirms it, in the server's era (contract §4: never "initialize
only" because a server uses OAuth).

It is what the connection's handshake sends first, so the server answers it as it answers any client: over
streamable HTTP on `handshake = "auto"` the 2026-07-28 `server/discover` (version headers and `_meta`, as the
SDK stamps it), then `initialize` when the server did not answer that as a 2026 server; `initialize` alone on
`"legacy"`; over SSE the stream's GET. The OAuth flow runs inside the first request. The sign-in counts only
once the server accepted one of them (HTTP 2xx): a 2026-only server refuses `initialize` (HTTP 400) whatever
the token, so that answer confirms nothing. An initialize-era server that never answers `server/discover`
(many ignore what they do not know) gets `PROBE_SECONDS` from the moment the request went out with a token,
as in the handshake; a 2026 server slower than that refuses the `initialize` after it, and is asked again
without the bound."""

from __future__ import annotations

from typing import Any, Final

import anyio
import httpx2
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

from ..config.loading import ServerConfig
from .handshake import CLIENT_INFO, DISCOVER, PROBE_SECONDS
from .oauth import SignInFailed

_CLIENT: Final = CLIENT_INFO.model_dump(mode="json", exclude_none=True)
INITIALIZE: Final = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": _CLIENT},
}
DISCOVER_REQUEST: Final = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": DISCOVER,
    "params": {
        "_meta": {
            PROTOCOL_VERSION_META_KEY: LATEST_MODERN_VERSION,
            CLIENT_INFO_META_KEY: _CLIENT,
            CLIENT_CAPABILITIES_META_KEY: {},
        }
    },
}
DISCOVER_HEADERS: Final = {MCP_PROTOCOL_VERSION_HEADER: LATEST_MODERN_VERSION, MCP_METHOD_HEADER: DISCOVER}
REFUSED: Final = (401, 403)

type Answer = tuple[str, int | None]  # the method asked, and the HTTP status (None: no answer in time)


async def confirm_sign_in(http: httpx2.AsyncClient, config: ServerConfig) -> None:
    """Send the sign-in's requests through `http` (its auth is the sign-in's OAuth provider) until the server
    accepts one; SignInFailed when it refuses the token or accepts none, naming what it answered."""
    url = config.url
    assert url is not None
    name = config.name
    if config.transport == "sse":
        status = await _status(http.stream("GET", url, headers={"Accept": "text/event-stream"}))
        if not _accepted(name, status):
            raise _unconfirmed(name, [("GET", status)])
        return
    answers: list[Answer] = []
    if config.handshake == "auto":
        probed = await _bounded_discover(http, url)
        if _accepted(name, probed):
            return
        answers.append((DISCOVER, probed))
    status = await _status(http.stream("POST", url, json=INITIALIZE))
    if _accepted(name, status):
        return
    answers.append(("initialize", status))
    if answers[0] == (DISCOVER, None):  # a 2026 server slower than the bound: asked again, without it
        status = await _status(http.stream("POST", url, json=DISCOVER_REQUEST, headers=DISCOVER_HEADERS))
        if _accepted(name, status):
            return
        answers.append((DISCOVER, status))
    raise _unconfirmed(name, answers)


def _accepted(name: str, status: int | None) -> bool:
    if status in REFUSED:
        raise SignInFailed(f"server '{name}' still refuses the sign-in (HTTP {status})")
    return status is not None and 200 <= status < 300


def _unconfirmed(name: str, answers: list[Answer]) -> SignInFailed:
    said = ", ".join(
        f"{method}: {'no answer' if status is None else f'HTTP {status}'}" for method, status in answers
    )
    return SignInFailed(
        f"server '{name}' did not accept the signed-in request ({said}): check `url` and `handshake` "
        "in its config"
    )


async def _status(request: Any) -> int:
    """The HTTP status `request` (an `http.stream(...)`) is answered with; the body is not read."""
    async with request as response:
        status: int = response.status_code
        return status


class _Watch:
    """The sign-in's requests to the server that carried a token, and the answers they got so far."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sent = 0
        self.answered = 0
        self.went_out = anyio.Event()

    async def on_request(self, request: httpx2.Request) -> None:
        if request.url == self.url and "Authorization" in request.headers:
            self.sent += 1
            self.went_out.set()

    async def on_response(self, response: httpx2.Response) -> None:
        if response.request.url == self.url and "Authorization" in response.request.headers:
            self.answered = self.sent

    async def unanswered(self) -> None:
        """Returns once a request with a token has had no answer for `PROBE_SECONDS`; a refusal answered in
        time (the flow then runs again, the person's sign-in included) starts the wait over."""
        while True:
            await self.went_out.wait()
            self.went_out = anyio.Event()
            sent = self.sent
            await anyio.sleep(PROBE_SECONDS)
            if self.answered < sent and self.sent == sent:
                return


async def _bounded_discover(http: httpx2.AsyncClient, url: str) -> int | None:
    """The status of `server/discover`, or None when the server left it unanswered `PROBE_SECONDS` after it
    went out with a token (the sign-in before that is bounded by the caller)."""
    watch = _Watch(url)
    answer: int | None = None
    http.event_hooks["request"].append(watch.on_request)
    http.event_hooks["response"].append(watch.on_response)
    try:
        async with anyio.create_task_group() as group:

            async def ask() -> None:
                nonlocal answer
                request = http.stream("POST", url, json=DISCOVER_REQUEST, headers=DISCOVER_HEADERS)
                answer = await _status(request)
                group.cancel_scope.cancel()

            async def bound() -> None:
                await watch.unanswered()
                group.cancel_scope.cancel()

            group.start_soon(ask)
            group.start_soon(bound)
    finally:
        http.event_hooks["request"].remove(watch.on_request)
        http.event_hooks["response"].remove(watch.on_response)
    return answer
