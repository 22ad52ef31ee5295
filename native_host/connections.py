"""The MCP connection manager: one supervisor task per configured server.

Each supervisor owns its `Client` from entry to exit (the SDK requires both in one task), bounds the handshake
and the first tools/list by `startup_timeout_sec`, then waits until the server goes away or the host stops.
Requests from any task use the client while it is ready. A server that dies is reported, its pending calls
fail with the SDK's "Connection closed" (-32000), and it is started again on its next use, with backoff
after failed starts."""

from __future__ import annotations

import logging
import math
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ValidationError

from .config import ServerConfig
from .identity import HOST_NAME, HOST_VERSION
from .jsonrpc import ErrorCode, RpcError
from .logs import open_server_log
from .redact import Scrubber
from .status import ServerStatus, State, StatusBoard
from .stdio_transport import stdio_transport

log = logging.getLogger(__name__)

CLIENT_INFO: Final = types.Implementation(name=HOST_NAME, version=HOST_VERSION, title="Tabgate")
FIRST_RETRY_SECONDS: Final = 0.5
MAX_RETRY_SECONDS: Final = 30.0
MAX_PAGES: Final = 10_000
NOISE_KEYS: Final = ("resultType", "ttlMs", "cacheScope")

type Streams = tuple[Any, Any]


def to_json(model: BaseModel) -> dict[str, Any]:
    """An MCP result as the extension protocol sends it: camelCase, no nulls, no SDK-added defaults."""
    data = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    for key in NOISE_KEYS:
        data.pop(key, None)
    return data


def _leaf(exc: BaseException) -> BaseException:
    # Connect failures arrive wrapped in (nested) single-member exception groups.
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    if isinstance(exc, MCPError):
        return f"{exc.message} (error {exc.code})"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def timeout_message(name: str, seconds: float) -> str:
    suggestion = max(30, int(seconds * 3))
    return (
        f"MCP client for `{name}` timed out after {seconds:g} seconds. Add or adjust `startup_timeout_sec` "
        f"in your config.toml:\n[mcp_servers.{name}]\nstartup_timeout_sec = {suggestion}"
    )


class CommandNotFound(FileNotFoundError):
    """A stdio server's command is not on the PATH the host has (browsers start hosts with a minimal one)."""


class Unavailable(RpcError):
    """The server cannot take requests now (-32000)."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(ErrorCode.SERVER_UNAVAILABLE, message, {"server": server})


async def paginate[P: BaseModel, T](
    fetch: Callable[[str | None], Awaitable[P]], items: Callable[[P], Sequence[T]], server: str
) -> list[T]:
    """Every page of a list verb; a cursor seen before ends the walk (a server looping would never end it)."""
    collected: list[T] = []
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        collected.extend(items(page))
        cursor = getattr(page, "next_cursor", None)
        if cursor is None:
            return collected
        if cursor in seen:
            log.warning("server %s repeated the cursor %r; stopping the listing there", server, cursor)
            return collected
        seen.add(cursor)
    log.warning("server %s returned more than %d pages; stopping the listing there", server, MAX_PAGES)
    return collected


@asynccontextmanager
async def _watched(transport: Any, lost: anyio.Event) -> AsyncIterator[Streams]:
    """The transport's streams, with `lost` set when the server's side ends (it exited or hung up)."""
    async with transport as (read, write):
        forward, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def pump() -> None:
            async with forward:
                try:
                    async for item in read:
                        await forward.send(item)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass
            lost.set()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()


class _Run:
    """One start of a server: from spawn to exit."""

    def __init__(self) -> None:
        self.client: Client | None = None
        self.settled = anyio.Event()  # ready, or failed to start
        self.finished = anyio.Event()  # fully closed
        self.lost = anyio.Event()  # the server went away, or the host is stopping
        self.startup: anyio.CancelScope | None = None


class Connection:
    """One configured server: its status, its current run, and the supervisor that owns that run's client."""

    def __init__(
        self, config: ServerConfig, *, board: StatusBoard, log_dir: Path, group: anyio.abc.TaskGroup
    ) -> None:
        self.config = config
        self.name = config.name
        self._board = board
        self._log_dir = log_dir
        self._group = group
        self._run: _Run | None = None
        self._tools: list[types.Tool] = []
        self._error: str | None = None
        self._stopping = False
        self._failures = 0
        self._retry_at = 0.0
        self.scrub = self._scrubber()

    def initial_status(self) -> ServerStatus:
        return {
            "name": self.name,
            "transport": self.config.transport,
            "status": "starting" if self.config.enabled else "disabled",
        }

    # -- what the dispatcher uses ------------------------------------------------------------------------

    @property
    def tools(self) -> list[types.Tool]:
        return self._tools if self._run is not None and self._run.client is not None else []

    def start(self) -> None:
        if self.config.enabled and not self._stopping and (self._run is None or self._run.finished.is_set()):
            self._run = _Run()
            self._group.start_soon(self._supervise, self._run, name=f"mcp-server {self.name}")

    async def client(self) -> Client:
        """The ready client; starts the server again if it died (after a backoff when starts keep failing)."""
        if not self.config.enabled:
            raise Unavailable(
                self.name, f"MCP server '{self.name}' is disabled in the config (enabled = false)"
            )
        run = self._run
        if run is not None and not run.finished.is_set():
            if run.client is not None:
                return run.client
            # Still starting: wait for the outcome. Closing after a failure or a death: wait for the end.
            await (run.finished if run.settled.is_set() else run.settled).wait()
            if run.client is not None:
                return run.client
            if not run.finished.is_set():
                raise self._unavailable()
        wait = self._retry_at - anyio.current_time()
        if wait > 0:
            raise self._unavailable(f" (next attempt in {math.ceil(wait)} s)")
        self.start()
        run = self._run
        assert run is not None
        await run.settled.wait()
        if run.client is None:
            raise self._unavailable()
        return run.client

    def _unavailable(self, suffix: str = "") -> Unavailable:
        return Unavailable(self.name, (self._error or f"MCP server '{self.name}' is not available") + suffix)

    async def wait_settled(self) -> None:
        if self._run is not None:
            await self._run.settled.wait()

    def connection_lost(self) -> None:
        """A request saw the connection close (HTTP transports may not notice on their own)."""
        if self._run is not None:
            self._run.lost.set()

    async def stop(self) -> None:
        self._stopping = True
        run = self._run
        if run is not None:
            run.lost.set()
            if run.startup is not None:
                run.startup.cancel()  # do not sit out a handshake at shutdown

    async def refresh_tools(self) -> None:
        run = self._run
        if run is None or run.client is None:
            return
        self._tools = await self._list_tools(run.client)
        self._publish("ready")

    # -- the supervisor ----------------------------------------------------------------------------------

    async def _supervise(self, run: _Run) -> None:
        config = self.config
        self._publish("starting")
        became_ready = False
        error: str | None = None
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + config.startup_timeout_sec) as startup:
                run.startup = startup
                async with AsyncExitStack() as stack:
                    transport = await self._transport(stack)
                    client = await stack.enter_async_context(
                        Client(
                            _watched(transport, run.lost),
                            mode=config.handshake,
                            read_timeout_seconds=config.tool_timeout_sec,
                            client_info=CLIENT_INFO,
                            message_handler=self._on_message,
                            logging_callback=self._on_log,
                            cache=None,
                        )
                    )
                    tools = await self._list_tools(client)
                    startup.deadline = math.inf
                    run.startup = None
                    self._tools, run.client = tools, client
                    self._error, self._failures, became_ready = None, 0, True
                    self._publish("ready")
                    run.settled.set()
                    log.info("server %s ready (%d tools)", self.name, len(tools))
                    await run.lost.wait()
                    run.client = None
            if startup.cancelled_caught and not self._stopping:
                error = timeout_message(self.name, config.startup_timeout_sec)
            elif not self._stopping:
                error = f"MCP server '{self.name}' closed the connection (it exited or hung up)"
        except Exception as exc:
            error = (
                self._start_error(exc)
                if not became_ready
                else f"MCP server '{self.name}' failed: {describe(exc)}"
            )
        finally:
            run.client = run.startup = None
            if not became_ready:
                self._failures += 1
            delay = (
                0.0
                if became_ready
                else min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (self._failures - 1))
            )
            self._retry_at = anyio.current_time() + delay
            if error is not None:
                self._error = self.scrub(error)
                log.warning("server %s: %s", self.name, self._error)
                self._publish("failed")
            run.settled.set()
            run.finished.set()

    def _start_error(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        if isinstance(leaf, CommandNotFound):
            return f"MCP client for `{self.name}` failed to start: {leaf}"
        if isinstance(leaf, FileNotFoundError) and self.config.command:
            return f"MCP client for `{self.name}` failed to start: command not found: {self.config.command}"
        return f"MCP client for `{self.name}` failed to start: {describe(exc)}"

    async def _transport(self, stack: AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            assert config.command is not None
            env = self._child_env()
            command = self._resolve_command(config.command, env)
            if config.cwd is not None and not Path(config.cwd).is_dir():
                raise FileNotFoundError(f"`cwd` {config.cwd} is not a folder")
            try:
                errlog: IO[bytes] = stack.enter_context(open_server_log(self._log_dir, self.name))
            except OSError as exc:  # an unusable log folder must not keep the server from running
                log.warning("server %s: cannot open its log file (%s); stderr is discarded", self.name, exc)
                errlog = stack.enter_context(open(os.devnull, "wb"))  # noqa: SIM115
            errlog.write(f"--- starting {command} ---\n".encode())
            errlog.flush()
            params = StdioServerParameters(command=command, args=list(config.args), env=env, cwd=config.cwd)
            return stdio_transport(params, errlog, self.scrub)
        assert config.url is not None
        headers = self._headers()
        if config.transport == "sse":
            return sse_client(config.url, headers=headers)
        http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
        return streamable_http_client(config.url, http_client=http)

    def _child_env(self) -> dict[str, str]:
        # The SDK adds HOME, PATH and a few more; `env_vars` names host variables to pass on as well.
        passed = {name: os.environ[name] for name in self.config.env_vars if name in os.environ}
        return {**passed, **self.config.env}

    def _resolve_command(self, command: str, env: dict[str, str]) -> str:
        search_path = env.get("PATH") or os.environ.get("PATH", os.defpath)
        found = shutil.which(command, path=search_path)
        if found is None:
            where = (
                "" if os.sep in command else f" on PATH ({search_path}); use an absolute path in `command`"
            )
            raise FileNotFoundError(f"command not found: {command}{where}")
        return found

    def _headers(self) -> dict[str, str]:
        headers = dict(self.config.http_headers)
        for header, variable in self.config.env_http_headers.items():
            value = os.environ.get(variable)
            if value:
                headers[header] = value
        if self.config.bearer_token_env_var:
            variable = self.config.bearer_token_env_var
            token = os.environ.get(variable)
            if token is None:
                raise RuntimeError(f"Environment variable {variable} for MCP server '{self.name}' is not set")
            if not token:
                raise RuntimeError(f"Environment variable {variable} for MCP server '{self.name}' is empty")
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def _scrubber(self) -> Scrubber:
        config = self.config
        secrets = [*config.env.values(), *config.http_headers.values()]
        secrets += [os.environ[name] for name in config.env_vars if name in os.environ]
        for variable in (*config.env_http_headers.values(), config.bearer_token_env_var):
            if variable and os.environ.get(variable):
                secrets.append(os.environ[variable])
        return Scrubber(secrets, [config.url] if config.url else [])

    async def _list_tools(self, client: Client) -> list[types.Tool]:
        capabilities = client.server_capabilities
        if capabilities is not None and capabilities.tools is None:
            return []
        try:
            tools = await paginate(
                lambda cursor: client.list_tools(cursor=cursor), lambda page: page.tools, self.name
            )
        except MCPError as exc:
            if exc.code == types.METHOD_NOT_FOUND:
                return []
            raise
        return [tool for tool in tools if self.config.allows_tool(tool.name)]

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, Exception):
            log.info("server %s sent something unreadable: %s", self.name, self.scrub(describe(message)))
        elif isinstance(message, types.ToolListChangedNotification):
            self._group.start_soon(self._refresh_quietly)

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh_tools()
        except (MCPError, ValidationError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            log.info("server %s: refreshing tools failed: %s", self.name, self.scrub(describe(exc)))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        log.debug("server %s log (%s): %s", self.name, params.level, self.scrub(str(params.data))[:2000])

    def _publish(self, state: State) -> None:
        status: ServerStatus = {"name": self.name, "transport": self.config.transport, "status": state}
        if state == "failed" and self._error:
            status["error"] = self._error
        client = self._run.client if self._run is not None else None
        if state == "ready" and client is not None:
            status["tools"] = len(self._tools)
            if client.server_capabilities is not None:
                status["capabilities"] = to_json(client.server_capabilities)
        self._board.set(status)


class ConnectionManager:
    """All configured servers, keyed by their config name; supervisors run in this manager's task group."""

    def __init__(self, servers: Sequence[ServerConfig], *, board: StatusBoard, log_dir: Path) -> None:
        self._servers = servers
        self._board = board
        self._log_dir = log_dir
        self._connections: dict[str, Connection] = {}
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> ConnectionManager:
        group = await self._stack.enter_async_context(anyio.create_task_group())
        for config in self._servers:
            self._connections[config.name] = Connection(
                config, board=self._board, log_dir=self._log_dir, group=group
            )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for connection in self._connections.values():
            await connection.stop()
        await self._stack.aclose()

    def initial_statuses(self) -> list[ServerStatus]:
        return [connection.initial_status() for connection in self._connections.values()]

    def start_all(self) -> None:
        for connection in self._connections.values():
            connection.start()

    def get(self, name: str) -> Connection:
        try:
            return self._connections[name]
        except KeyError:
            known = ", ".join(sorted(self._connections)) or "none"
            raise RpcError(
                ErrorCode.UNKNOWN_SERVER,
                f"unknown MCP server '{name}' (configured: {known})",
                {"server": name},
            ) from None

    def all(self) -> list[Connection]:
        return [self._connections[name] for name in sorted(self._connections)]
