"""`handshake = "auto"` bounded: the 2026-07-28 `server/discover` probe gets `PROBE_SECONDS` to be answered.

The mcp SDK waits 10 s (`mcp.client.session.DISCOVER_TIMEOUT_SECONDS`) for an answer to its probe before it
falls back to `initialize`; a server of the initialize era that ignores methods it does not know before
`initialize` (many do, on every transport) never answers, so every start would cost 10 s more than
`"legacy"`. `bounded_probe` wraps one connection's transport instead of the SDK's module-wide constant: when
the first probe has no answer in time it answers it for the server (-32001), which sends the SDK on to
`initialize`; over streamable HTTP it also aborts the probe's POST (the SDK's OAuth holds one lock across a
request until its answer starts, so an open probe would hold back every later request).

A modern server that was only slow (a busy machine) is not lost: if it then refuses the `initialize` that
followed because that carried no protocol version (-32020, a 2026-07-28-only server over HTTP), the refusal
reaches the SDK as what it means, -32022 naming the modern version, and the SDK probes once more, this time
without the short bound. An SDK server that answered the late probe refuses `initialize` with -32022 itself.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types.version import LATEST_MODERN_VERSION

from ..config.identity import HOST_NAME, HOST_VERSION

log = logging.getLogger(__name__)

PROBE_SECONDS: Final = 0.5
DISCOVER: Final = "server/discover"
CLIENT_INFO: Final = types.Implementation(name=HOST_NAME, version=HOST_VERSION, title="Tabgate")


class _Probe:
    """What one connection's handshake has shown so far."""

    def __init__(self) -> None:
        self.probe_id: types.RequestId | None = None  # the first server/discover: the one bounded
        self.answered = anyio.Event()
        self.cut_short = False  # the bound answered it for the server
        self.initialize_id: types.RequestId | None = None  # the initialize sent after that


class _WatchedWrite:
    """The transport's write stream, telling `_Probe` what the client sends (everything passes unchanged)."""

    def __init__(self, inner: Any, probe: _Probe, start_bound: Any) -> None:
        self._inner = inner
        self._probe = probe
        self._start_bound = start_bound

    async def send(self, item: SessionMessage) -> None:
        message, probe = item.message, self._probe
        if isinstance(message, types.JSONRPCRequest):
            if message.method == DISCOVER and probe.probe_id is None:
                probe.probe_id = message.id
                self._start_bound(message.id)
            elif message.method == "initialize" and probe.cut_short:
                probe.initialize_id = message.id
        await self._inner.send(item)

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _as_seen(item: SessionMessage | Exception, probe: _Probe) -> SessionMessage | Exception | None:
    """A message from the server as the SDK should see it; None for a probe answer that came too late."""
    if not isinstance(item, SessionMessage):
        return item
    message = item.message
    if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id == probe.probe_id:
        if probe.cut_short:
            return None  # the SDK has moved on to initialize
        probe.answered.set()
    if (
        isinstance(message, types.JSONRPCError)
        and message.id == probe.initialize_id
        and message.error.code == types.HEADER_MISMATCH
    ):
        log.info("the server refused initialize for want of a protocol version: probing again")
        data = types.UnsupportedProtocolVersionErrorData(supported=[LATEST_MODERN_VERSION], requested="")
        error = types.ErrorData(
            code=types.UNSUPPORTED_PROTOCOL_VERSION,
            message=message.error.message,
            data=data.model_dump(mode="json"),
        )
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
    return item


@asynccontextmanager
async def bounded_probe(
    transport: Any, *, abort_post: bool, seconds: float = PROBE_SECONDS
) -> AsyncIterator[tuple[Any, Any]]:
    """`transport`'s streams, its first `server/discover` answered within `seconds` whatever the server does.
    `abort_post`: streamable HTTP, where a cancel notification aborts the probe's own POST."""
    probe = _Probe()
    async with transport as (read, write), anyio.create_task_group() as group:
        forward, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def bound(request_id: types.RequestId) -> None:
            with anyio.move_on_after(seconds):
                await probe.answered.wait()
            if probe.answered.is_set():
                return
            probe.cut_short = True
            log.info("no answer to %s within %g s: trying initialize", DISCOVER, seconds)
            error = types.ErrorData(
                code=types.REQUEST_TIMEOUT, message=f"no answer to {DISCOVER} within {seconds:g} s"
            )
            try:
                if abort_post:
                    cancel = types.JSONRPCNotification(
                        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": request_id}
                    )
                    await write.send(SessionMessage(cancel))
                await forward.send(
                    SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
                )
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass  # the connection is over: nobody waits for the probe

        async def pump() -> None:
            async with forward:
                try:
                    async for item in read:
                        seen = _as_seen(item, probe)
                        if seen is not None:
                            await forward.send(seen)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass

        group.start_soon(pump)
        try:
            yield receive, _WatchedWrite(write, probe, lambda rid: group.start_soon(bound, rid))
        finally:
            group.cancel_scope.cancel()
