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
from anyio.streams.memory import MemoryObjectReceiveStream
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
        self.stood_in = False  # the bound's stand-in answer has been passed on
        self.handed_over = False  # the pump has stopped: the transport is read directly

    def settled(self) -> bool:
        """Nothing more can come from the bound: what is left to do reads one message at a time."""
        return self.answered.is_set() or self.stood_in


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


class _ProbedRead:
    """The transport's read stream as the SDK sees it: through the probe's pump until the probe is settled
    (answered, or answered for the server), then read directly, so the rest of the connection's life has no
    task or stream between the session and the transport (a pump there cost each message a task switch)."""

    def __init__(
        self, read: Any, forwarded: MemoryObjectReceiveStream[SessionMessage | Exception], probe: _Probe
    ) -> None:
        self._read = read
        self._forwarded = forwarded
        self._probe = probe
        self._direct = False

    async def receive(self) -> SessionMessage | Exception:
        if not self._direct:
            try:
                return await self._forwarded.receive()
            except anyio.EndOfStream:
                if not self._probe.handed_over:
                    raise  # the transport ended while the pump read it
                self._direct = True
        while True:  # a late probe answer is dropped: read on
            seen = _as_seen(await self._read.receive(), self._probe)
            if seen is not None:
                return seen

    async def aclose(self) -> None:
        await self._forwarded.aclose()

    def __aiter__(self) -> _ProbedRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _ProbedRead:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


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
            probe.stood_in = True

        async def pump() -> None:
            # Only until the probe is settled: then `_ProbedRead` reads the transport itself.
            async with forward:
                try:
                    while not probe.settled():
                        seen = _as_seen(await read.receive(), probe)
                        if seen is not None:
                            await forward.send(seen)
                    probe.handed_over = True
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass

        group.start_soon(pump)
        try:
            yield (
                _ProbedRead(read, receive, probe),
                _WatchedWrite(write, probe, lambda rid: group.start_soon(bound, rid)),
            )
        finally:
            group.cancel_scope.cancel()
