"""A server's transports: stdio (its command resolved, with the env it is given) or streamable HTTP and SSE
(with its headers), watched for the server going away; and the secrets of its config, kept out of output."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import unquote, urlsplit

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.message import SessionMessage

from ..config.loading import ServerConfig
from ..config.redact import Scrubber
from ..process.logs import open_server_log
from .failures import CannotStart, CommandNotFound, ConfigRefused, NotExecutable, RefusalWatch
from .result_type import completed
from .stdio_transport import stdio_transport

log = logging.getLogger(__name__)

type Streams = tuple[Any, Any]


class _Watched:
    """A transport's read stream that sets `lost` when it ends and reads a result without `resultType` as
    complete (result_type.py): read by the session itself, with no task or stream between them (a pump there
    cost each message a task switch; docs/benchmarks.md)."""

    def __init__(self, read: Any, lost: anyio.Event) -> None:
        self._read = read
        self._lost = lost

    async def receive(self) -> SessionMessage | Exception:
        try:
            return completed(cast("SessionMessage | Exception", await self._read.receive()))
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._lost.set()
            raise

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@asynccontextmanager
async def watched(transport: Any, lost: anyio.Event) -> AsyncIterator[Streams]:
    """The transport's streams, with `lost` set when the server's side ends (it exited or hung up), and each
    result that does not say its `resultType` read as complete (result_type.py)."""
    async with transport as (read, write):
        yield _Watched(read, lost), write


class Run:
    """One start of a server: from spawn to exit."""

    def __init__(self) -> None:
        self.client: Client | None = None
        self.settled = anyio.Event()  # ready, or failed to start
        self.lost = anyio.Event()  # the server went away, or the host is stopping
        self.startup: anyio.CancelScope | None = None
        self.ready_at: float | None = None
        self.ended = False  # the run's end is accounted for (status, backoff)
        self.http_status: int | None = None  # the last HTTP status a POST got before ready (failure classes)
        self.refusal: BaseException | None = None  # an OAuth refusal met before ready (failure classes)


async def open_transport(
    config: ServerConfig, stack: AsyncExitStack, run: Run, *, log_dir: Path, scrub: Scrubber, auth: Any
) -> Any:
    """One run's transport: stdio (its stderr to the server's log file) or HTTP (the handshake's status and
    refusals recorded in `run`, for the failure class)."""
    name = config.name
    if config.transport == "stdio":
        assert config.command is not None
        env = child_env(config)
        command = resolve_command(config.command, env)
        if config.cwd is not None and not Path(config.cwd).is_dir():
            raise ConfigRefused(f"`cwd` {config.cwd} is not a folder: create it or change `cwd`")
        try:
            errlog: IO[bytes] = stack.enter_context(open_server_log(log_dir, name))
        except OSError as exc:  # an unusable log folder must not keep the server from running
            log.warning("server %s: cannot open its log file (%s); stderr is discarded", name, exc)
            errlog = stack.enter_context(open(os.devnull, "wb"))  # noqa: SIM115
        errlog.write(f"--- starting {command} ---\n".encode())
        errlog.flush()
        params = StdioServerParameters(command=command, args=list(config.args), env=env, cwd=config.cwd)
        return stdio_transport(params, errlog, scrub)
    assert config.url is not None
    headers = server_headers(config)

    def refused(exc: BaseException) -> None:
        # Streamable HTTP swallows errors raised in its request tasks: end the handshake from here.
        if run.ready_at is None and run.refusal is None:
            run.refusal = exc
            if run.startup is not None:
                run.startup.cancel()

    def http_client(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> httpx2.AsyncClient:
        watched = RefusalWatch(auth, refused) if auth is not None else None
        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=watched)

        async def record(response: httpx2.Response) -> None:
            # The handshake's HTTP status, for the failure class (streamable HTTP hides it behind a
            # JSON-RPC stand-in).
            if run.ready_at is None and response.request.method == "POST":
                run.http_status = response.status_code

        client.event_hooks["response"].append(record)
        return client

    if config.transport == "sse":
        return sse_client(config.url, headers=headers, auth=auth, httpx_client_factory=http_client)
    http = await stack.enter_async_context(http_client(headers=headers, auth=auth))
    return streamable_http_client(config.url, http_client=http)


def child_env(config: ServerConfig) -> dict[str, str]:
    # The SDK adds HOME, PATH and a few more; `env_vars` names host variables to pass on as well.
    passed = {name: os.environ[name] for name in config.env_vars if name in os.environ}
    return {**passed, **config.env}


def resolve_command(command: str, env: dict[str, str]) -> str:
    search_path = env.get("PATH") or os.environ.get("PATH", os.defpath)
    found = shutil.which(command, path=search_path)
    if found is not None:
        return found
    if os.sep in command:
        path = Path(command)
        if path.is_dir():
            raise NotExecutable(f"command is a folder, not a program: {command}; fix `command`")
        if path.exists():
            raise NotExecutable(
                f"command not executable: {command}; make it executable (chmod +x) or fix `command`"
            )
        raise CommandNotFound(f"command not found: {command}; install it or fix `command`")
    present = [
        str(Path(folder) / command)
        for folder in search_path.split(os.pathsep)
        if folder and (Path(folder) / command).is_file()
    ]
    if present:
        raise NotExecutable(
            f"command not executable: {present[0]}; make it executable (chmod +x) or fix `command`"
        )
    raise CommandNotFound(
        f"command not found: {command} on PATH ({search_path}); use an absolute path in `command`"
    )


def server_headers(config: ServerConfig) -> dict[str, str]:
    name = config.name
    headers = dict(config.http_headers)
    for header, variable in config.env_http_headers.items():
        value = os.environ.get(variable)
        if value:
            headers[header] = value
    if config.bearer_token_env_var:
        variable = config.bearer_token_env_var
        token = os.environ.get(variable)
        if token is None:
            raise ConfigRefused(f"Environment variable {variable} for MCP server '{name}' is not set")
        if not token:
            raise ConfigRefused(f"Environment variable {variable} for MCP server '{name}' is empty")
        headers["Authorization"] = f"Bearer {token}"
    secret = config.oauth_client_secret_env_var
    if secret and not os.environ.get(secret):
        raise CannotStart(
            f"Environment variable {secret} (oauth_client_secret_env_var) for MCP server '{name}' is not set"
        )
    return headers


def server_scrubber(config: ServerConfig) -> Scrubber:
    """What must not leak of a server's config: env and header values, the secrets in its URL."""
    secrets = [*config.env.values(), *config.http_headers.values()]
    secrets += [os.environ[name] for name in config.env_vars if name in os.environ]
    variables = (*config.env_http_headers.values(), config.bearer_token_env_var)
    for variable in (*variables, config.oauth_client_secret_env_var):
        if variable and os.environ.get(variable):
            secrets.append(os.environ[variable])
    if config.url:
        secrets += url_secrets(config.url)
    return Scrubber(secrets, [config.url] if config.url else [])


def url_secrets(url: str) -> list[str]:
    """The password and query values of a server URL, as written and decoded: they must not leak alone."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    values = [pair.partition("=")[2] for pair in parts.query.split("&")]
    if parts.password:
        values.append(parts.password)
    return [text for value in values if value for text in {value, unquote(value)}]
