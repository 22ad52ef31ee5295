"""The agent gateway inside the host Chrome started: the user-only socket, one session per agent, and the
requests the host makes of the browser on their behalf (contract §8).

The socket exists only while the person has turned the gateway on (the browser says so with `gateway/state`).
Each connection is one gateway session: its calls go to the extension as `gateway/call` with the session's id,
so they run in the session's own turn and consent applies per session; no session sees another's calls.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.abc
from anyio.abc import SocketAttribute, SocketListener, SocketStream

from .browser_link import BrowserGone, BrowserLink
from .gateway_results import call_tool_result, error_result
from .gateway_socket import GatewaySocketError, bind_listening_socket, peer_allowed
from .gateway_wire import LineChannel, Message, WireError
from .jsonrpc import CANCEL_METHOD, Notification
from .outbox import Outbox
from .protocol import GATEWAY_CHANGED, GATEWAY_STATE
from .redact import KNOWN_SECRETS, scrub_data

log = logging.getLogger(__name__)

CLOSED_METHOD: Final = "gateway/closed"  # host → browser {session}: an agent disconnected
LIST_TIMEOUT_SECONDS: Final = 15.0
# The extension bounds every call by its own limits (the server's tool_timeout_sec, the consent timeout); this
# ceiling only guarantees no wait here outlives the longest limit the config allows.
CALL_CEILING_SECONDS: Final = 86400.0 + 600.0
MAX_SESSIONS: Final = 64
BIND_RETRY_SECONDS: Final = 1.0


class Gateway:
    def __init__(self, outbox: Outbox, path: Path, browser: BrowserLink) -> None:
        self._outbox = outbox
        self._notices: anyio.abc.TaskGroup | None = None  # set while run() runs
        self._path = path
        self.browser = browser
        self._on = False
        self._toggled = anyio.Event()
        self._session_ids = itertools.count(1)
        self._channels: dict[str, LineChannel] = {}

    # -- from the browser (on the loop thread) -----------------------------------------------------------

    def notification(self, message: Notification) -> None:
        if message.method == GATEWAY_STATE:
            on = message.params.get("enabled") is True
            if on != self._on:
                self._on = on
                self._toggled.set()  # wakes whoever waits for the switch; later waits get a fresh event
                self._toggled = anyio.Event()
        elif message.method == GATEWAY_CHANGED:
            for channel in list(self._channels.values()):
                self._spawn_notice(channel)

    # -- the listener ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Listen while the gateway is on; close the socket and every session when it is turned off."""
        async with anyio.create_task_group() as notices:
            self._notices = notices
            await self._serve()

    async def _serve(self) -> None:
        refused: str | None = None
        while True:
            await self._until(on=True)
            try:
                listener = await SocketListener.from_socket(bind_listening_socket(self._path))
            except GatewaySocketError as exc:
                # Often the host of a browser that is closing still holds the socket: try again shortly.
                if str(exc) != refused:
                    log.error("agent gateway: %s (trying again every %g s)", exc, BIND_RETRY_SECONDS)
                    refused = str(exc)
                with anyio.move_on_after(BIND_RETRY_SECONDS):
                    await self._until(on=False)
                continue
            refused = None
            log.info("agent gateway listening on %s", self._path)
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._accept, listener, group)
                    await self._until(on=False)
                    group.cancel_scope.cancel()
            finally:
                await listener.aclose()
                with contextlib.suppress(OSError):
                    self._path.unlink()
                log.info("agent gateway closed")

    async def _until(self, *, on: bool) -> None:
        while self._on != on:
            await self._toggled.wait()

    async def _accept(self, listener: SocketListener, group: anyio.abc.TaskGroup) -> None:
        while True:
            stream = await listener.accept()
            if not peer_allowed(stream.extra(SocketAttribute.raw_socket)):
                log.warning("agent gateway: refused a connection from another user")
                await stream.aclose()
            elif len(self._channels) >= MAX_SESSIONS:
                log.warning("agent gateway: refused a connection: %d sessions already", MAX_SESSIONS)
                await stream.aclose()
            else:
                group.start_soon(self._session, stream)

    async def _session(self, stream: SocketStream) -> None:
        session = f"agent-{next(self._session_ids)}"
        channel = LineChannel(stream)
        self._channels[session] = channel
        running: dict[Any, anyio.CancelScope] = {}
        log.info("agent gateway: session %s opened", session)
        try:
            async with anyio.create_task_group() as group:
                while True:
                    try:
                        message = await channel.receive()
                    except WireError as exc:
                        log.warning("agent gateway: session %s: %s; closing it", session, exc)
                        break
                    if message is None:
                        break
                    if message.get("method") == CANCEL_METHOD:
                        scope = running.get((message.get("params") or {}).get("id"))
                        if scope is not None:
                            scope.cancel()
                    elif "id" in message and isinstance(message.get("method"), str):
                        group.start_soon(self._answer, session, channel, message, running)
                group.cancel_scope.cancel()
        finally:
            del self._channels[session]
            await stream.aclose()
            self._outbox.notify(CLOSED_METHOD, {"session": session})
            log.info("agent gateway: session %s closed", session)

    async def _answer(
        self, session: str, channel: LineChannel, message: Message, running: dict[Any, anyio.CancelScope]
    ) -> None:
        request_id = message["id"]
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        with anyio.CancelScope() as scope:
            running[request_id] = scope
            try:
                result = await self._relay(session, str(message["method"]), params)
            finally:
                del running[request_id]
        if scope.cancelled_caught:
            return
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            # Configured secrets never reach an agent, even where a page or a tool shows one.
            await channel.send(
                {"jsonrpc": "2.0", "id": request_id, "result": scrub_data(result, KNOWN_SECRETS)}
            )

    async def _relay(self, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        client = params.get("client") if isinstance(params.get("client"), dict) else {}
        if method == "tools/list":
            try:
                answer = await self.browser.request(
                    "gateway/tools", {"session": session, "client": client}, timeout=LIST_TIMEOUT_SECONDS
                )
            except BrowserGone as exc:
                log.info("agent gateway: tools/list for %s: %s", session, exc)
                return {"tools": []}
            tools = answer.get("tools") if isinstance(answer, dict) else None
            return {"tools": tools if isinstance(tools, list) else []}
        if method == "tools/call":
            arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
            try:
                answer = await self.browser.request(
                    "gateway/call",
                    {
                        "session": session,
                        "client": client,
                        "name": str(params.get("name", "")),
                        "arguments": arguments,
                    },
                    timeout=CALL_CEILING_SECONDS,
                )
            except BrowserGone as exc:
                return error_result(f"Tabgate could not run the call: {exc}")
            return call_tool_result(answer if isinstance(answer, dict) else {})
        return error_result(f"unknown gateway method {method!r}")

    def _spawn_notice(self, channel: LineChannel) -> None:
        async def notice() -> None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await channel.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

        if self._notices is not None:
            self._notices.start_soon(notice)
