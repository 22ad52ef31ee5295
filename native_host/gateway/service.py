"""The agent gateway inside the host Chrome started: the user-only socket, one session per agent, and the
requests the host makes of the browser on their behalf (contract §8, §8.1).

The socket exists only while the person has turned the gateway on (the browser says so with `gateway/state`).

A connection becomes a session in three steps:
1. at accept, the OS says who the peer is (`peers.py`): only `tabgate-host mcp` of this install, run by
   this user, is kept; anything else (a raw socket client, another user) is closed at once, unanswered;
2. within `HANDSHAKE_SECONDS` of connecting, its first message must be the request
   `gateway/hello {client: {name, version}}` (the agent's MCP `clientInfo`); otherwise it is closed;
3. the session then has an agent `{name, version, executable}` — the executable being the peer's parent
   process as the OS reports it — which goes with each `gateway/tools` and `gateway/call` to the browser, so
   every call runs in the session's own turn and consent binds to the executable, never to a claimed name.

Bounds, so that a peer can cost a fixed amount and never shut another agent out:
- answers wait in a per-session queue written by one writer; once `OUTPUT_CAP` bytes wait for a peer that does
  not read, its requests are no longer read (the kernel's socket buffer then stops its writes: backpressure),
  and at most `MAX_RUNNING` requests of one agent program run at once, so what waits for it is bounded by the
  cap plus the answers of the requests already running. Repeated `tools/list_changed` notices are never queued
  twice.
- sessions and running requests count per agent program, never per connection (`bounds.py`), so no program
  locks another out, even with every call of its sessions waiting for the person. Unfinished handshakes hold
  no slot and last at most `HANDSHAKE_SECONDS`.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import time
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.abc
from anyio.abc import SocketAttribute, SocketListener, SocketStream
from pydantic import BaseModel, ValidationError

from core.agents.agent_names import clean_name, clean_version
from core.calls.capabilities import McpErrorCode, McpRequestError

from ..config.redact import KNOWN_SECRETS, scrub_data
from ..process import jsonrpc
from ..process.browser_link import BrowserGone, BrowserLink
from ..process.jsonrpc import CANCEL_METHOD, Notification, Request, RequestId
from ..process.method_table import GATEWAY_CHANGED, GATEWAY_PROGRESS, GATEWAY_STATE
from ..process.outbox import Outbox
from .bounds import Seats
from .peers import AgentProgram, Install, PeerRefused, agent_program
from .place import GatewaySocketError, bind_listening_socket, peer_credentials
from .progress import parse_progress, progress_message
from .results import error_result
from .session import Agent, Session
from .standing import StateFile
from .wire import HELLO_METHOD, LineChannel, WireError, encode

log = logging.getLogger(__name__)

CLOSED_METHOD: Final = "gateway/closed"  # host → browser {session}: an agent disconnected
LIST_TIMEOUT_SECONDS: Final = 15.0
# The extension bounds every call by its own limits (the server's tool_timeout_sec, the consent timeout); this
# ceiling only guarantees no wait here outlives the longest limit the config allows.
CALL_CEILING_SECONDS: Final = 86400.0 + 600.0
HANDSHAKE_SECONDS: Final = 5.0
REQUEST_LINE_MAX: Final = 8 * 1024 * 1024  # an agent's request is a tool call's arguments, never a page
BIND_RETRY_SECONDS: Final = 1.0
# What an agent's running call answers when the person turns agents off, sent before its session closes (its
# `tabgate-host mcp` could otherwise say only that Tabgate went away); how long the answers may take to go.
SWITCHED_OFF: Final = "The call was stopped: the person turned off agents in Tabgate."
FAREWELL_SECONDS: Final = 1.0


class ClientInfo(BaseModel):
    name: str
    version: str = ""


class HelloParams(BaseModel):
    client: ClientInfo


class Refused(Exception):
    """A peer is closed before it becomes a session; the message says why (logged, and sent when useful)."""


class Gateway:
    def __init__(self, outbox: Outbox, path: Path, browser: BrowserLink) -> None:
        self._outbox = outbox
        self._path = path
        self.browser = browser
        self._on = False
        self._toggled = anyio.Event()
        self._session_ids = itertools.count(1)
        self._seats: Seats[Session] = Seats()
        self._install = Install.current()
        self.state_file = StateFile(path.parent)  # tells agents whether the gateway is on (standing.py)

    # -- from the browser (on the loop thread) -----------------------------------------------------------

    def notification(self, message: Notification) -> None:
        if message.method == GATEWAY_STATE:
            on = message.params.get("enabled") is True
            self.state_file.write(gateway=on)  # its first word too: off ends "starting" (standing.py)
            if on != self._on:
                self._on = on
                self._toggled.set()  # wakes whoever waits for the switch; later waits get a fresh event
                self._toggled = anyio.Event()
        elif message.method == GATEWAY_CHANGED:
            for session in self._seats.all():
                session.out.put_list_changed()
        elif message.method == GATEWAY_PROGRESS and (note := parse_progress(message.params)):
            for session in self._seats.all():  # an agent's running call: its request's progress
                if session.id == note.session and (running := session.running.get(note.ref)):
                    session.out.put(progress_message(note, running[0]))

    # -- the listener ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Listen while the gateway is on; close the socket and every session when it is turned off."""
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
                    await self._farewell()
                    group.cancel_scope.cancel()
            finally:
                await listener.aclose()
                with contextlib.suppress(OSError):
                    self._path.unlink()
                log.info("agent gateway closed")

    async def _farewell(self) -> None:
        """Each running call is answered with why it ends, and given a moment to reach its agent."""
        sessions = list(self._seats.all())
        for session in sessions:
            for key in list(session.running):
                request_id, scope = session.running.pop(key)
                scope.cancel()
                session.out.put(jsonrpc.result_message(request_id, error_result(SWITCHED_OFF)))
        with anyio.move_on_after(FAREWELL_SECONDS):
            for session in sessions:
                await session.out.sent()

    async def _until(self, *, on: bool) -> None:
        while self._on != on:
            await self._toggled.wait()

    async def _accept(self, listener: SocketListener, group: anyio.abc.TaskGroup) -> None:
        while True:
            stream = await listener.accept()
            group.start_soon(self._guarded_peer, stream)

    async def _guarded_peer(self, stream: SocketStream) -> None:
        """A failure of one peer, whatever it is, ends that peer only, never the listener or other agents."""
        try:
            await self._peer(stream)
        except Exception:
            log.exception("agent gateway: a connection failed")
            with anyio.CancelScope(shield=True):
                await stream.aclose()

    async def _peer(self, stream: SocketStream) -> None:
        try:
            program = self._identify(stream)
            channel = LineChannel(stream, max_line=REQUEST_LINE_MAX)
            with anyio.fail_after(HANDSHAKE_SECONDS):
                hello_id, client = await self._hello(channel)
        except (Refused, TimeoutError) as exc:
            why = str(exc) or f"no gateway/hello within {HANDSHAKE_SECONDS:g} s"
            log.warning("agent gateway: refused a connection: %s", why)
            await stream.aclose()
            return
        agent = Agent(
            name=clean_name(client.name),
            version=clean_version(client.version),
            executable=program.executable,
            runs=program.runs,
        )
        with anyio.CancelScope() as scope:
            session = Session(f"agent-{next(self._session_ids)}", agent, stream, scope)
            full = self._seats.take(session)
            if full is not None:
                with (
                    contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError),
                    anyio.move_on_after(1),
                ):
                    refusal = McpRequestError(McpErrorCode.SERVER_UNAVAILABLE, full)
                    await stream.send(encode(jsonrpc.error_message(hello_id, refusal)))
                log.warning("agent gateway: refused %s: %s", agent.executable, full)
                await stream.aclose()
                return
            log.info("agent gateway: session %s opened for %s (%s)", session.id, agent.name, agent.executable)
            session.out.put(jsonrpc.result_message(hello_id, {"session": session.id}))
            try:
                await self._serve_session(session, channel)
            finally:
                self._seats.leave(session)
                with anyio.CancelScope(shield=True):
                    await stream.aclose()
                self._outbox.notify(CLOSED_METHOD, {"session": session.id})
                log.info("agent gateway: session %s closed", session.id)

    def _identify(self, stream: SocketStream) -> AgentProgram:
        credentials = peer_credentials(stream.extra(SocketAttribute.raw_socket))
        if credentials is None:
            raise Refused("this system cannot say who connected")
        pid, uid = credentials
        if uid != os.getuid():
            raise Refused(f"the peer runs as uid {uid}, another user")
        try:
            return agent_program(pid, self._install)
        except PeerRefused as exc:
            raise Refused(str(exc)) from None

    async def _hello(self, channel: LineChannel) -> tuple[RequestId, ClientInfo]:
        try:
            message = await channel.receive(max_line=64 * 1024)
        except WireError as exc:
            raise Refused(str(exc)) from None
        if message is None:
            raise Refused("the peer left before its handshake")
        if not isinstance(message, Request) or message.method != HELLO_METHOD:
            raise Refused(f"the first message was not a {HELLO_METHOD} request")
        try:
            return message.id, HelloParams.model_validate(message.params).client
        except ValidationError as exc:
            raise Refused(f"{HELLO_METHOD} without a client name: {exc.errors()[0]['msg']}") from None

    async def _serve_session(self, session: Session, channel: LineChannel) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(self._write, session, group)
            while True:
                # Backpressure: a peer that does not read its answers is not read either.
                await session.out.until_room()
                await self._seats.until_room(session.program)
                try:
                    message = await channel.receive()
                except WireError as exc:
                    log.warning("agent gateway: session %s: %s; closing it", session.id, exc)
                    break
                if message is None:
                    break
                session.last_active = time.monotonic()
                if isinstance(message, Notification) and message.method == CANCEL_METHOD:
                    cancelled = message.params.get("id")
                    for request_id, scope in session.running.values():
                        if request_id == cancelled:
                            scope.cancel()
                elif isinstance(message, Request):
                    key, scope = next(session.keys), anyio.CancelScope()
                    session.running[key] = (message.id, scope)
                    self._seats.started(session.program)
                    group.start_soon(self._answer, session, message, key)
            group.cancel_scope.cancel()

    async def _write(self, session: Session, group: anyio.abc.TaskGroup) -> None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await session.out.write()
        group.cancel_scope.cancel()  # the peer is gone: stop reading and running for it

    async def _answer(self, session: Session, message: Request, key: int) -> None:
        request_id, scope = session.running[key]
        with scope:
            try:
                result = await self._relay(session, message.method, message.params, key)
            finally:
                # Gone already when the call was answered for (the gateway turned off): never answered twice.
                running = session.running.pop(key, None) is not None
                session.last_active = time.monotonic()
                self._seats.ended(session.program)
        if running and not scope.cancelled_caught:
            # Configured secrets never reach an agent, even where a page or a tool shows one.
            session.out.put(jsonrpc.result_message(request_id, scrub_data(result, KNOWN_SECRETS)))

    async def _relay(self, session: Session, method: str, params: dict[str, Any], key: int) -> dict[str, Any]:
        agent = session.agent_json
        if method == "tools/list":
            try:
                answer = await self.browser.request(
                    "gateway/tools", {"session": session.id, "agent": agent}, timeout=LIST_TIMEOUT_SECONDS
                )
            except BrowserGone as exc:
                log.info("agent gateway: tools/list for %s: %s", session.id, exc)
                return {"tools": []}
            tools = answer.get("tools") if isinstance(answer, dict) else None
            return {"tools": tools if isinstance(tools, list) else []}
        if method == "tools/call":
            arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
            try:
                answer = await self.browser.request(
                    "gateway/call",
                    {
                        "session": session.id,
                        "agent": agent,
                        "name": str(params.get("name", "")),
                        "arguments": arguments,
                        "ref": key,  # named by the browser's gateway/progress for this call
                    },
                    timeout=CALL_CEILING_SECONDS,
                )
            except BrowserGone as exc:
                return error_result(f"Tabgate could not run the call: {exc}")
            return _checked_result(answer)
        return error_result(f"unknown gateway method {method!r}")


def _checked_result(answer: Any) -> dict[str, Any]:
    """The browser's CallToolResult, relayed as it came: the browser built it, and `tabgate-host mcp` reads it
    into the SDK's model anyway (validating it here as well cost every call; docs/benchmarks.md)."""
    if isinstance(answer, dict):
        return answer
    log.error("agent gateway: the browser's answer is not a JSON object: %.200r", answer)
    return error_result("Tabgate's browser side sent an answer that is not an MCP tool result (no object)")
