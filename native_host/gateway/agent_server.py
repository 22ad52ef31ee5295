"""`tabgate-host mcp`: the MCP server an agent (codex, Claude, Cursor) starts over stdio.

It owns no tools itself: it reaches the host that Chrome started through the user-only gateway socket and
relays `tools/list` and `tools/call` there. It connects once it knows its agent's `clientInfo` (sent at MCP
`initialize`, or with each request by a 2026-07-28 client) and opens each connection with
`gateway/hello {client}`; the host learns the rest of the agent's identity from the OS. The place of the
socket is found from the user's identity alone (every candidate of `place.socket_paths`, in order),
never from the environment the agent passed. The browser or its host may start, close and restart under a
running agent: the link reconnects by itself (every `RETRY_MIN_SECONDS`, backing off to `RETRY_MAX_SECONDS`,
and at once when a call finds it down) and every change of the tool set goes out as
`notifications/tools/list_changed`.

Clients know where they stand (contract §8.2): while the host does not answer, `tools/list` gives Tabgate's
fixed tools (catalogue.py) and a call answers `isError` with what to do (standing.py), so a client that lists
only once (codex) has the tools when the browser comes; the `initialize` instructions say whether the browser
was reachable when the agent started.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import mcp_types as types
from anyio.abc import SocketAttribute
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from ..config.identity import HOST_VERSION
from ..process.jsonrpc import (
    CANCEL_METHOD,
    Notification,
    Response,
    notification_message,
    request_message,
)
from .place import GatewaySocketError, check_folder, peer_credentials, socket_paths
from .results import error_result
from .standing import Standing, Where, diagnose
from .wire import HELLO_METHOD, LineChannel, WireError

log = logging.getLogger(__name__)

RETRY_MIN_SECONDS: Final = 0.25
RETRY_MAX_SECONDS: Final = 1.0
HELLO_TIMEOUT_SECONDS: Final = 5.0
# A first request may come a moment after the agent identified itself: it waits that long for the link.
SETTLE_SECONDS: Final = 3.0
# A call that finds the host just started waits that long for the browser to say whether agents may come.
STARTING_SECONDS: Final = 10.0
LIST_TIMEOUT_SECONDS: Final = 15.0
LOST: Final = (
    "Tabgate went away during the call (the browser closed or restarted); the call may not have run."
)


type Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class LinkDown(Exception):
    """The host is not there (browser closed, gateway off) or went away during a request."""


class HostLink:
    """A reconnecting client of the host's gateway socket: requests, answers, and change notices."""

    def __init__(self, on_change: Callable[[], Awaitable[None]]) -> None:
        self._on_change = on_change
        self._channel: LineChannel | None = None
        self._pending: dict[int, MemoryObjectSendStream[Response]] = {}
        self._on_progress: dict[int, Progress] = {}  # of the pending requests that asked for progress
        self._ids = itertools.count(1)
        self._client: dict[str, str] | None = None
        self._identified = anyio.Event()
        self._settled = anyio.Event()  # the first attempt after identification is over, found or not
        self._said: set[str] = set()  # warnings already given since the last connection (tried every second)
        self.standing = diagnose([path.parent for path in socket_paths()])
        # A call that finds the link down asks for an attempt at once rather than wait for the next one.
        self._wake = anyio.Event()
        self._attempts = 0  # attempts finished
        self._trying = False  # an attempt is under way (it may have begun before the host came)
        self._attempted = anyio.Event()  # set (and replaced) as each attempt finishes

    @property
    def connected(self) -> bool:
        return self._channel is not None

    def identify(self, client: dict[str, str]) -> None:
        """The agent's clientInfo: the link connects once it knows it (the host's handshake needs it)."""
        if self._client is None:
            self._client = client
            self._identified.set()

    async def settled(self) -> None:
        with anyio.move_on_after(SETTLE_SECONDS):
            await self._settled.wait()

    async def try_now(self) -> None:
        """If the link is down, one attempt to connect that starts after this call, waited for (bounded);
        from a host that has just started, attempts until the browser said whether agents may come in."""
        wanted = self._attempts + (2 if self._trying else 1)
        self._wake.set()
        with anyio.move_on_after(SETTLE_SECONDS):
            while not self.connected and self._attempts < wanted:
                await self._attempted.wait()
        with anyio.move_on_after(STARTING_SECONDS):  # a host that just started is linked within seconds
            while not self.connected and self.standing.where is Where.STARTING:
                await self._attempted.wait()

    async def run(self) -> None:
        await self._identified.wait()
        delay = RETRY_MIN_SECONDS
        while True:
            self._trying = True
            channel = await self._connect()
            self._trying = False
            self._settled.set()
            self._attempts += 1
            self._attempted.set()
            self._attempted = anyio.Event()
            if channel is None:
                with anyio.move_on_after(delay):
                    await self._wake.wait()
                self._wake = anyio.Event()
                delay = min(delay * 2, RETRY_MAX_SECONDS)
                continue
            delay = RETRY_MIN_SECONDS
            self.standing = Standing(Where.UP)
            self._channel = channel
            await self._on_change()
            try:
                await self._read(channel)
            finally:
                self._channel = None
                for waiter in self._pending.values():
                    waiter.close()
                self._pending.clear()
                with anyio.CancelScope(shield=True):
                    await channel.aclose()
            log.info("the Tabgate host went away")
            self.standing = diagnose([path.parent for path in socket_paths()])
            await self._on_change()
            await anyio.sleep(RETRY_MIN_SECONDS)

    async def _connect(self) -> LineChannel | None:
        """A channel to the host at the first place that answers our hello, or None (and why, in
        `standing`)."""
        refused: str | None = None
        paths = socket_paths()
        for path in paths:
            try:
                check_folder(path.parent)  # another user's folder could hide a host of theirs
            except GatewaySocketError as exc:
                if path.parent.exists() or path.parent.is_symlink():
                    self._warn(f"not using {path}: {exc}")
                continue
            try:
                stream = await anyio.connect_unix(str(path))
            except OSError:
                continue
            credentials = peer_credentials(stream.extra(SocketAttribute.raw_socket))
            if credentials is not None and credentials[1] != os.getuid():
                self._warn(f"not using {path}: it is served by uid {credentials[1]}")
                await stream.aclose()
                continue
            channel = LineChannel(stream)
            try:
                with anyio.fail_after(HELLO_TIMEOUT_SECONDS):
                    await channel.send(
                        request_message(next(self._ids), HELLO_METHOD, {"client": self._client})
                    )
                    answer = await channel.receive()
            except (TimeoutError, WireError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                answer = None
            if not isinstance(answer, Response) or answer.error is not None:
                why = str(
                    (answer.error if isinstance(answer, Response) and answer.error else {}).get(
                        "message", "it closed the connection unanswered (its log says why)"
                    )
                )
                self._warn(f"the Tabgate host at {path} did not take this agent: {why}")
                refused = refused or why
                await channel.aclose()
                continue
            log.info("connected to the Tabgate host at %s", path)
            self._said.clear()
            return channel
        self.standing = diagnose([path.parent for path in paths], refused)
        return None

    def _warn(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            log.warning("%s", text)

    async def _read(self, channel: LineChannel) -> None:
        while True:
            try:
                message = await channel.receive()
            except WireError as exc:
                log.warning("the host sent something unreadable: %s", exc)
                return
            if message is None:
                return
            if isinstance(message, Notification):
                if message.method == "notifications/tools/list_changed":
                    await self._on_change()
                elif message.method == "notifications/progress":
                    await self._progress(message.params)
                continue
            if not isinstance(message, Response):
                continue  # the host asks an agent's relay nothing
            waiter = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
            if waiter is not None:
                await waiter.send(message)
                waiter.close()

    async def _progress(self, params: dict[str, Any]) -> None:
        """A running call's progress (an MCP tool's, a task's), to the agent that asked for it."""
        if report := self._on_progress.get(params.get("requestId")):  # type: ignore[arg-type]
            with contextlib.suppress(
                anyio.BrokenResourceError, anyio.ClosedResourceError, ValueError, TypeError
            ):
                await report(float(params["progress"]), params.get("total"), params.get("message"))

    async def request(self, method: str, params: dict[str, Any], on_progress: Progress | None = None) -> Any:
        channel = self._channel
        if channel is None:
            raise LinkDown(self.standing.advice)
        request_id = next(self._ids)
        send, receive = anyio.create_memory_object_stream[Response](1)
        self._pending[request_id] = send
        if on_progress is not None:
            self._on_progress[request_id] = on_progress
        try:
            await channel.send(request_message(request_id, method, params))
            try:
                answer = await receive.receive()
            except anyio.EndOfStream:
                raise LinkDown(LOST) from None
        except anyio.get_cancelled_exc_class():
            # The agent gave up (its own time limit or a cancel): the browser stops the work too.
            with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                await channel.send(notification_message(CANCEL_METHOD, {"id": request_id}))
            raise
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise LinkDown(LOST) from None
        finally:
            self._pending.pop(request_id, None)
            self._on_progress.pop(request_id, None)
            receive.close()
        if answer.error is not None:
            raise LinkDown(str(answer.error.get("message", "the Tabgate host refused the request")))
        return answer.result


def _client_of(session: ServerSession) -> dict[str, str]:
    params = session.client_params
    info = params.client_info if params is not None else None
    if info is None:
        return {"name": "unknown agent", "version": ""}
    return {"name": info.name, "version": info.version}


class AgentServer:
    def __init__(self) -> None:
        self._session: ServerSession | None = None
        self._listed = False  # notifications are sent once the agent has listed tools (it is initialized)
        self.link = HostLink(self._changed)
        self.server: Server[Any] = Server(
            "tabgate",
            version=HOST_VERSION,
            title="Tabgate",
            # Read by clients at `initialize` (Claude Code and Gemini CLI put them in the model's prompt).
            instructions=self.link.standing.instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._initialized
        )

    async def _initialized(self, ctx: Any, params: types.NotificationParams) -> None:
        self.link.identify(_client_of(ctx.session))

    async def _changed(self) -> None:
        session = self._session
        if session is not None and self._listed:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session.send_tool_list_changed()

    async def _list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self._session, self._listed = ctx.session, True
        self.link.identify(_client_of(ctx.session))
        await self.link.settled()
        if self.link.connected:
            try:
                with anyio.fail_after(LIST_TIMEOUT_SECONDS):
                    result = types.ListToolsResult.model_validate(await self.link.request("tools/list", {}))
            except (LinkDown, TimeoutError, ValidationError) as exc:
                log.info("tools/list: %s", exc)
            else:
                # Empty only while the browser side is going (the gateway just turned off, the browser
                # closing), or with every tool disabled by the person (a call then says so).
                if result.tools:
                    return result
        return types.ListToolsResult(tools=_fixed_tools())

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        self._session = ctx.session
        self.link.identify(_client_of(ctx.session))
        await self.link.settled()
        if not self.link.connected:
            await self.link.try_now()  # the browser may have come since the last attempt
        try:
            result = await self.link.request(
                "tools/call",
                {"name": params.name, "arguments": params.arguments or {}},
                ctx.session.report_progress,  # a no-op unless the agent gave a progressToken
            )
        except LinkDown as exc:
            result = error_result(str(exc))
        try:  # the one check of the browser's answer (the host relays it as it came)
            return types.CallToolResult.model_validate(result)
        except ValidationError as exc:
            log.error("the browser's answer is not a CallToolResult: %s", exc)
            return types.CallToolResult.model_validate(
                error_result(f"Tabgate's browser side sent an answer that is not an MCP tool result: {exc}")
            )

    async def serve(self) -> None:
        options = self.server.create_initialization_options(NotificationOptions(tools_changed=True))
        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            group.start_soon(self.link.run)
            await self.server.run(read, write, options)
            group.cancel_scope.cancel()


def _fixed_tools() -> list[types.Tool]:
    # Imported when first needed: the core's tool models cost ~0.2 s, which an agent whose browser is up
    # (it lists the browser's tools) never pays at its start.
    from .catalogue import fixed_tools

    return fixed_tools()


def run_agent_server() -> int:
    anyio.run(AgentServer().serve)
    return 0
