"""The MCP connection manager: one supervisor task per configured server, for the host's whole life.

The supervisor owns each run's `Client` from entry to exit (the SDK requires both in one task), bounds the
handshake (initialize and the first tools/list) by `startup_timeout_sec` alone, then waits until the server
goes away or the host stops. A server that exits, hangs up or fails to start is started again in the
background: backoff 1 s doubling to 60 s, back to 1 s after 60 s of health or when someone uses the server.
Its last known tools stay listed (unavailable) meanwhile, and requests to it fail at once, saying why and when
the next start is due. Requests from any task use the client while it is ready."""

from __future__ import annotations

import logging
import math
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any, Final
from urllib.parse import unquote, urlsplit

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ValidationError

from ..config.files import FileWriteError
from ..config.identity import HOST_NAME, HOST_VERSION
from ..config.loading import ServerConfig
from ..config.paths import data_dir
from ..config.preview import MAX_TIMEOUT_SEC
from ..config.redact import Scrubber
from ..process.browser_link import BrowserLink
from ..process.jsonrpc import ErrorCode, RpcError
from ..process.logs import open_server_log
from .elicitation import elicitor
from .failures import (
    CannotStart,
    CommandNotFound,
    ConfigRefused,
    Failure,
    Mend,
    NotExecutable,
    RefusalWatch,
    classify,
)
from .failures import leaf as _leaf
from .handshake import bound_the_probe
from .oauth import (
    SIGN_IN_SECONDS,
    Authorize,
    ServerOAuth,
    SignInFailed,
    SignOut,
    TokenFile,
    configured_client,
    revoke,
    uses_oauth,
)
from .server_logs import LogEntry, LogRing
from .signin import Challenge, SignInLedger, refused_request
from .status import ServerStatus, State, StatusBoard
from .stdio_transport import stdio_transport

log = logging.getLogger(__name__)
bound_the_probe()  # handshake = "auto" costs at most its probe bound more than "legacy"

CLIENT_INFO: Final = types.Implementation(name=HOST_NAME, version=HOST_VERSION, title="Tabgate")
FIRST_RETRY_SECONDS: Final = 1.0
MAX_RETRY_SECONDS: Final = 60.0
HEALTHY_SECONDS: Final = 60.0  # a server up this long starts its backoff over when it next goes away
MAX_PAGES: Final = 10_000
NOISE_KEYS: Final = ("resultType", "ttlMs", "cacheScope")
CLOSED_REASON: Final = "connection closed"

type Streams = tuple[Any, Any]
type Notify = Callable[[str, dict[str, Any]], None]  # a host → browser notification: method, params

# A server's list_changed notification → the one the host sends the browser, with `{server}`.
LIST_CHANGED: Final[dict[type[BaseModel], str]] = {
    types.ToolListChangedNotification: "notifications/tools/list_changed",
    types.ResourceListChangedNotification: "notifications/resources/list_changed",
    types.PromptListChangedNotification: "notifications/prompts/list_changed",
}
SERVER_LOG: Final = "notifications/serverLog"


def _drop(method: str, params: dict[str, Any]) -> None:
    """The notify of a manager nobody listens to (doctor)."""


def to_json(model: BaseModel) -> dict[str, Any]:
    """An MCP result as the extension protocol sends it: camelCase, no nulls, no SDK-added defaults."""
    data = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    for key in NOISE_KEYS:
        data.pop(key, None)
    return data


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


def retry_delay(failures: int) -> float:
    """The wait before the next start after `failures` (>= 1) runs in a row that ended badly."""
    return min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2.0 ** min(failures - 1, 16))


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
        self.lost = anyio.Event()  # the server went away, or the host is stopping
        self.startup: anyio.CancelScope | None = None
        self.ready_at: float | None = None
        self.ended = False  # the run's end is accounted for (status, backoff)
        self.http_status: int | None = None  # the last HTTP status a POST got before ready (failure classes)
        self.refusal: BaseException | None = None  # an OAuth refusal met before ready (failure classes)


class Connection:
    """One configured server: its status, its last known tools, and the supervisor that starts it (again)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        board: StatusBoard,
        log_dir: Path,
        group: anyio.abc.TaskGroup,
        notify: Notify = _drop,
        browser: BrowserLink | None = None,
        oauth_dir: Path | None = None,
        ledger: SignInLedger | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        # Contract §3 caps both at a day; the cap here keeps deadlines finite whatever the config held.
        self.startup_timeout = min(config.startup_timeout_sec, MAX_TIMEOUT_SEC)
        self.tool_timeout = min(config.tool_timeout_sec, MAX_TIMEOUT_SEC)
        self._board = board
        self._log_dir = log_dir
        self._group = group
        self._notify = notify
        # Elicitation is declared only where a person can answer it: under the browser, not under `doctor`.
        self._elicitor = elicitor(browser, self.name, self.tool_timeout) if browser else None
        self._ledger = ledger or SignInLedger()  # the server's refusals, kept across its connections
        self._oauth = self._token_file(oauth_dir) if oauth_dir is not None else None
        self._signed_in = self._oauth is not None and self._oauth.signed_in()
        self._sign_in_needed = False  # the server refused us until the person signs in: no restarts till then
        self._signing_in = False
        self._sign_in_error: str | None = None  # why the person's last sign-in failed, until the next one
        self._run: _Run | None = None
        self._state: State = "starting" if config.enabled else "disabled"
        self._tools: list[types.Tool] = []  # the last known tools, kept while the server is down
        self._tools_version = 0  # bumped when the server's list_changed brought a different tool list
        self._error: str | None = None
        self._failures = 0  # runs in a row that ended badly: the backoff's exponent
        self._restarts = 0
        self._retry_at: float | None = None  # when the next start is due, while waiting for it
        self._nudged = anyio.Event()
        self._first_settled = anyio.Event()
        self._started = False
        self._stopping = False
        self.scrub = self._scrubber()
        self.logs = LogRing(self.scrub)

    def initial_status(self) -> ServerStatus:
        return self._status(None)

    def status(self) -> ServerStatus:
        return self._status(self._run)

    # -- what the dispatcher uses ------------------------------------------------------------------------

    @property
    def tools(self) -> list[types.Tool]:
        """The tools of the last run that listed them (after the config's filters), ready or not."""
        return self._tools

    @property
    def available(self) -> bool:
        run = self._run
        return run is not None and run.client is not None and not run.lost.is_set()

    def start(self) -> None:
        if self.config.enabled and not self._started:
            self._started = True
            self._run = _Run()  # now, so that requests arriving before the supervisor runs see a start
            self._group.start_soon(self._supervise, self._run, name=f"mcp-server {self.name}")

    async def client(self) -> Client:
        """The ready client; during the first start, after that start. A server that is down fails at once."""
        run = self._run
        if self._state == "starting" and run is not None:
            await run.settled.wait()
        return self.ready_client()

    def ready_client(self) -> Client:
        """The ready client, or Unavailable saying why and when the next start is due (which it brings
        forward: using a server that is down starts it again soon)."""
        run = self._run
        if run is not None and run.client is not None and not run.lost.is_set():
            return run.client
        if not self.config.enabled:
            raise Unavailable(
                self.name, f"server '{self.name}' is unavailable: disabled in the config (enabled = false)"
            )
        self._nudge()
        raise self.unavailable()

    def unavailable(self) -> Unavailable:
        reason = self._error or ("still starting" if self._state == "starting" else CLOSED_REASON)
        message = f"server '{self.name}' is unavailable: {reason}"
        if self._state == "restarting":
            message += f"; restarting {self._when()}"
        return Unavailable(self.name, message)

    def _when(self) -> str:
        if self._retry_at is None:
            return "now"
        return f"in {max(1, math.ceil(self._retry_at - anyio.current_time()))} s"

    async def wait_settled(self) -> None:
        """Until the first start has succeeded or failed (doctor's question)."""
        if self._started:
            await self._first_settled.wait()

    async def wait_attempt(self) -> None:
        """Until the start under way, if any, has succeeded or failed."""
        run = self._run
        if run is not None and self._retry_at is None:
            await run.settled.wait()

    def connection_lost(self) -> None:
        """A request saw the connection close (HTTP transports may not notice on their own)."""
        run = self._run
        if run is not None and not self._stopping:
            self._ended(run, CLOSED_REASON)
            run.lost.set()

    async def stop(self) -> None:
        self._stopping = True
        self._nudged.set()
        run = self._run
        if run is not None:
            run.lost.set()
            if run.startup is not None:
                run.startup.cancel()  # do not sit out a handshake at shutdown

    async def refresh_tools(self) -> bool:
        """List the tools of the running server again; False when it is not running (nothing changed)."""
        run = self._run
        if run is None or run.client is None:
            return False
        with anyio.fail_after(self.tool_timeout):
            tools = await self._list_tools(run.client)
        if run.client is None:
            return False
        if tools != self._tools:
            # The status changes even when only a tool's schema did: the browser refetches on it.
            self._tools_version += 1
        self._tools = tools
        self._publish()
        return True

    # -- the supervisor ----------------------------------------------------------------------------------

    async def _supervise(self, run: _Run) -> None:
        try:
            while not self._stopping:
                self._run = run
                self._retry_at = None
                self._publish()
                permanent = await self._start(run) or self._sign_in_needed
                if self._stopping:
                    return
                self._ended(run, CLOSED_REASON)  # a run never ends unaccounted: that would restart at once
                if permanent:
                    self._state = "failed"
                    self._publish()
                    return
                await self._sit_out_backoff()
                run = _Run()
        finally:
            self._settle(run)  # nobody waits on a start that will never come

    async def _sit_out_backoff(self) -> None:
        while not self._stopping and self._retry_at is not None:
            remaining = self._retry_at - anyio.current_time()
            if remaining <= 0:
                return
            with anyio.move_on_after(remaining):
                await self._nudged.wait()
            self._nudged = anyio.Event()

    def _nudge(self) -> None:
        """Someone wants this server: the backoff starts over and the next start is at most 1 s away."""
        self._failures = 0
        soon = anyio.current_time() + FIRST_RETRY_SECONDS
        if self._retry_at is not None and soon < self._retry_at:
            self._retry_at = soon
            self._publish()
            self._nudged.set()

    async def _start(self, run: _Run) -> bool:
        """One run, from spawn to exit; True when it cannot start and retrying cannot help."""
        config = self.config
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + self.startup_timeout) as startup:
                run.startup = startup
                async with AsyncExitStack() as stack:
                    transport = await self._transport(stack, run)
                    client = await stack.enter_async_context(
                        Client(
                            _watched(transport, run.lost),
                            mode=self._handshake(),
                            # No session-wide limit: the startup scope bounds the handshake, and every
                            # request after it carries its own (tool_timeout_sec or the caller's).
                            read_timeout_seconds=None,
                            client_info=CLIENT_INFO,
                            message_handler=self._on_message,
                            logging_callback=self._on_log,
                            elicitation_callback=self._elicitor,
                            cache=None,
                        )
                    )
                    tools = await self._list_tools(client)
                    startup.deadline = math.inf
                    run.startup = None
                    self._tools, run.client = tools, client
                    run.ready_at = anyio.current_time()
                    self._state, self._error = "ready", None
                    self._publish()
                    self._settle(run)
                    log.info("server %s ready (%d tools)", self.name, len(tools))
                    await run.lost.wait()
                    run.client = None
                    self._ended(run, CLOSED_REASON + " (the server exited or hung up)")
            if startup.cancelled_caught and run.refusal is not None:
                failure = classify(run.refusal)
                permanent = failure.mend is Mend.FIX
                self._ended(run, self._start_error(run.refusal, failure), permanent=permanent)
                return permanent
            if startup.cancelled_caught:
                self._ended(run, timeout_message(self.name, self.startup_timeout))
        except Exception as exc:
            if run.ready_at is None:
                failure = classify(exc, http_status=run.http_status, url=config.url)
                permanent = failure.mend is Mend.FIX
                self._ended(run, self._start_error(exc, failure), permanent=permanent)
                return permanent
            else:  # often raised by the transport's close, after the loss was announced: the better reason
                self._ended(run, f"MCP server '{self.name}' failed: {describe(exc)}", refine=True)
        finally:
            run.client = run.startup = None
            self._settle(run)
        return False

    def _handshake(self) -> str:
        """The SDK's connect mode. Under OAuth the SDK holds one lock across each HTTP request, so a probe
        that an initialize-only streamable HTTP server leaves open would hold back every later request: such
        a server gets `initialize` only (every server of the 2026 era answers it too)."""
        if self.config.transport == "streamable_http" and self._oauth is not None:
            return "legacy"
        return self.config.handshake

    def _settle(self, run: _Run) -> None:
        run.settled.set()
        self._first_settled.set()

    def _ended(self, run: _Run, reason: str, *, permanent: bool = False, refine: bool = False) -> None:
        """Account for the end of `run` once: why, the backoff, the status. With `refine`, a run already
        accounted for gets this reason instead of the one it had."""
        if self._stopping:
            return
        if self._sign_in_needed:
            reason, permanent = sign_in_message(self.name), True
        if run.ended:
            if refine and run is self._run and self._state == "restarting":
                self._error = self.scrub(reason)
                log.warning("server %s: %s", self.name, self._error)
                self._publish()
            return
        run.ended = True
        now = anyio.current_time()
        if run.ready_at is not None and now - run.ready_at >= HEALTHY_SECONDS:
            self._failures = 0
        self._error = self.scrub(reason)
        if permanent:
            log.warning("server %s: %s", self.name, self._error)
            return
        self._failures += 1
        self._restarts += 1
        delay = retry_delay(self._failures)
        self._retry_at = now + delay
        self._state = "restarting"
        log.warning("server %s: %s; restarting in %g s", self.name, self._error, delay)
        self._publish()

    def _start_error(self, exc: BaseException, failure: Failure) -> str:
        leaf = _leaf(exc)
        if isinstance(leaf, (CommandNotFound, NotExecutable)):
            return f"MCP client for `{self.name}` failed to start: {leaf}"
        if isinstance(leaf, CannotStart):
            return f"MCP client for `{self.name}` cannot start: {leaf}"
        if isinstance(leaf, FileNotFoundError) and self.config.command:
            return f"MCP client for `{self.name}` failed to start: command not found: {self.config.command}"
        if failure.fix is not None:
            return f"MCP client for `{self.name}` failed to start: {failure.fix} ({describe(exc)})"
        return f"MCP client for `{self.name}` failed to start: {describe(exc)}"

    async def _transport(self, stack: AsyncExitStack, run: _Run) -> Any:
        config = self.config
        if config.transport == "stdio":
            assert config.command is not None
            env = self._child_env()
            command = self._resolve_command(config.command, env)
            if config.cwd is not None and not Path(config.cwd).is_dir():
                raise ConfigRefused(f"`cwd` {config.cwd} is not a folder: create it or change `cwd`")
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
        auth = self._provider(run)

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

    # -- OAuth -------------------------------------------------------------------------------------------

    def _token_file(self, folder: Path) -> TokenFile | None:
        config = self.config
        if config.url is None or config.bearer_token_env_var is not None:
            return None
        if not uses_oauth({**config.http_headers, **config.env_http_headers}):
            return None
        client = None
        if config.oauth_client_id is not None:
            variable = config.oauth_client_secret_env_var
            client = configured_client(config.oauth_client_id, os.environ.get(variable) if variable else None)
        return TokenFile(folder, self.name, config.url, client)

    def _provider(self, run: _Run) -> ServerOAuth | None:
        """A run's OAuth: stored tokens, refreshed; a call for a new sign-in ends the run until it happens."""
        if self._oauth is None or self.config.url is None:
            return None

        def needs_sign_in() -> None:
            self._sign_in_needed = True
            # Streamable HTTP swallows errors raised in its request tasks: end the handshake or run from here.
            if run.startup is not None:
                run.startup.cancel()
            run.lost.set()

        def refused(challenge: Challenge) -> None:
            # A 401 goes on through the flow's discovery to the page, where `needs_sign_in` ends the run.
            self._ledger.refused(challenge)
            if challenge.step_up and self.config.transport == "sse":
                needs_sign_in()  # the SSE transport's writer dies on a refused POST: the run is over
            elif challenge.step_up:  # the token still serves the rest: only the refused call fails
                log.info("server %s asks for more scope: %s", self.name, challenge.scope)
                self._publish()

        return ServerOAuth(
            self.config.url,
            self._oauth,
            on_sign_in_required=needs_sign_in,
            on_refused=refused,
            on_accepted=self._ledger.accepted,
            client_metadata_url=self.config.oauth_client_metadata_url,
            scopes=self.config.oauth_scopes,
        )

    def refusal(self, exc: MCPError) -> Unavailable | None:
        """The error for a request the server refused until the person signs in (the transport reports
        the HTTP refusal as a bare error), or None when `exc` is something else."""
        if not refused_request(exc) or self._ledger.report() is None:
            return None
        return Unavailable(self.name, self._ledger.message(self.name))

    async def sign_in(self, authorize: Authorize) -> None:
        """One authorized request to the server with a provider that may open the sign-in page; the tokens it
        gets are stored for the next run. A plain request, not a session: streamable HTTP would swallow a
        failed sign-in inside its request task, and the person must hear why it failed."""
        store, url = self._oauth, self.config.url
        if store is None or url is None:
            raise SignInFailed(
                f"server '{self.name}' does not sign in with OAuth (its config sets Authorization)"
            )
        if (gave_up := self._ledger.gave_up(self.name)) is not None:
            self._sign_in_error = gave_up
            self._publish()
            raise SignInFailed(gave_up)
        provider = ServerOAuth(
            url,
            store,
            authorize=authorize,
            replay=self._ledger.challenge,  # the refusal to sign in for: the probe itself may pass
            client_metadata_url=self.config.oauth_client_metadata_url,
            scopes=self.config.oauth_scopes,
        )
        headers = {"Accept": "application/json, text/event-stream", **self._headers()}
        self._signing_in = True
        self._sign_in_error = None
        self._publish()
        try:
            await self._sign_in_with(provider, headers)
        except SignInFailed as exc:
            # Kept in the status until the next try: the popup that asked may have closed meanwhile.
            self._sign_in_error = self._error = self.scrub(str(exc))
            raise
        finally:
            self._signing_in = False
            self._publish()
        self._signed_in = True
        self._ledger.signed_in()
        if (endpoint := provider.revocation_endpoint()) is not None:  # None too when tokens were still good
            try:
                await store.set_revocation_endpoint(endpoint)
            except FileWriteError as exc:  # the tokens are stored: only a later sign-out cannot revoke them
                log.warning("server %s: could not keep the revocation endpoint: %s", self.name, exc)

    async def _sign_in_with(self, provider: ServerOAuth, headers: dict[str, str]) -> None:
        url = self.config.url
        assert url is not None
        try:
            with anyio.fail_after(SIGN_IN_SECONDS + self.startup_timeout):
                async with create_mcp_http_client(headers=headers, auth=provider) as http:
                    if self.config.transport == "sse":
                        request = http.stream("GET", url, headers={"Accept": "text/event-stream"})
                    else:
                        request = http.stream("POST", url, json=_PROBE)
                    async with request as response:
                        if response.status_code in (401, 403):
                            status = response.status_code
                            raise SignInFailed(
                                f"server '{self.name}' still refuses the sign-in (HTTP {status})"
                            )
        except SignInFailed:
            raise
        except TimeoutError:
            raise SignInFailed(
                f"sign-in to '{self.name}' was not finished within {SIGN_IN_SECONDS:g} s"
            ) from None
        except Exception as exc:
            leaf = _leaf(exc)
            if isinstance(leaf, SignInFailed):
                raise leaf from None
            raise SignInFailed(f"sign-in to '{self.name}' failed: {self.scrub(describe(exc))}") from None

    async def sign_out(self) -> SignOut:
        """Forget the server's tokens here, then ask its authorization server to revoke them."""
        self._ledger.reset()
        grant = self._oauth.forget() if self._oauth is not None else None
        if grant is None:
            return SignOut(signed_out=False, revoked=False)
        return SignOut(signed_out=True, revoked=await revoke(grant))

    def _child_env(self) -> dict[str, str]:
        # The SDK adds HOME, PATH and a few more; `env_vars` names host variables to pass on as well.
        passed = {name: os.environ[name] for name in self.config.env_vars if name in os.environ}
        return {**passed, **self.config.env}

    def _resolve_command(self, command: str, env: dict[str, str]) -> str:
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
                raise ConfigRefused(
                    f"Environment variable {variable} for MCP server '{self.name}' is not set"
                )
            if not token:
                raise ConfigRefused(f"Environment variable {variable} for MCP server '{self.name}' is empty")
            headers["Authorization"] = f"Bearer {token}"
        secret = self.config.oauth_client_secret_env_var
        if secret and not os.environ.get(secret):
            raise CannotStart(
                f"Environment variable {secret} (oauth_client_secret_env_var) for MCP server '{self.name}' "
                "is not set"
            )
        return headers

    def _scrubber(self) -> Scrubber:
        config = self.config
        secrets = [*config.env.values(), *config.http_headers.values()]
        secrets += [os.environ[name] for name in config.env_vars if name in os.environ]
        variables = (*config.env_http_headers.values(), config.bearer_token_env_var)
        for variable in (*variables, config.oauth_client_secret_env_var):
            if variable and os.environ.get(variable):
                secrets.append(os.environ[variable])
        if config.url:
            secrets += url_secrets(config.url)
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
        elif type(message) in LIST_CHANGED:
            self._notify(LIST_CHANGED[type(message)], {"server": self.name})

    async def _refresh_quietly(self) -> None:
        """The tools again after the server said they changed; the browser hears of it once they are in."""
        try:
            if await self.refresh_tools():
                self._notify(LIST_CHANGED[types.ToolListChangedNotification], {"server": self.name})
        except (
            MCPError,
            ValidationError,
            TimeoutError,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
        ) as exc:
            log.info("server %s: refreshing tools failed: %s", self.name, self.scrub(describe(exc)))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        entry = self.logs.add(params.level, params.logger, params.data)
        log.debug("server %s log (%s): %s", self.name, entry["level"], entry["data"])
        note: dict[str, Any] = {"server": self.name, "level": entry["level"], "data": entry["data"]}
        if "logger" in entry:
            note["logger"] = entry["logger"]
        self._notify(SERVER_LOG, note)

    def log_entries(self) -> list[LogEntry]:
        return self.logs.entries()

    def _publish(self) -> None:
        if self._stopping:
            return  # a stopped connection's last words must not cover its successor's status
        self._board.set(self._status(self._run))

    def _status(self, run: _Run | None) -> ServerStatus:
        status: ServerStatus = {
            "name": self.name,
            "transport": self.config.transport,
            "status": self._state,
            "toolTimeoutSec": self.tool_timeout,
            "startupTimeoutSec": self.startup_timeout,
        }
        if self._signing_in:
            status["auth"] = "signingIn"
        elif self._sign_in_needed or self._ledger.more_scope_asked():
            status["auth"] = "required"
            if self._ledger.challenge is not None and self._ledger.challenge.scope:
                status["scope"] = self._ledger.challenge.scope
        elif self._signed_in:
            status["auth"] = "signedIn"
        if self._sign_in_error is not None and "auth" in status and status["auth"] != "signedIn":
            status["signInError"] = self._sign_in_error
        if self._state in ("restarting", "failed") and self._error:
            status["error"] = self._error
        if self._state == "restarting":
            status["restarts"] = self._restarts
            if self._retry_at is not None:
                status["retryInMs"] = max(0, math.ceil((self._retry_at - anyio.current_time()) * 1000))
        client = run.client if run is not None else None
        if self._state == "ready" and client is not None:
            status["tools"] = len(self._tools)
            if self._tools_version:
                status["toolsVersion"] = self._tools_version
            if client.server_capabilities is not None:
                status["capabilities"] = to_json(client.server_capabilities)
        return status


# The request a sign-in sends: the handshake's first message, so the server answers it like any client's.
_PROBE: Final = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": types.LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": CLIENT_INFO.model_dump(mode="json", exclude_none=True),
    },
}


def sign_in_message(name: str) -> str:
    return f"MCP server '{name}' needs you to sign in: use Sign in beside it in the Tabgate popup"


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


class ConnectionManager:
    """All configured servers, keyed by their config name; supervisors run in this manager's task group."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        board: StatusBoard,
        log_dir: Path,
        notify: Notify = _drop,
        browser: BrowserLink | None = None,
        oauth_dir: Path | None = None,
    ) -> None:
        self._servers = servers
        self._oauth_dir = oauth_dir or data_dir() / "oauth"
        self._signing_in: str | None = None
        self._notify = notify
        self._browser = browser
        self._board = board
        self._log_dir = log_dir
        self._connections: dict[str, Connection] = {}
        # Per server name and URL: they outlive the restarts a sign-in makes, not a move to another server.
        self._ledgers: dict[tuple[str, str | None], SignInLedger] = {}
        self._group: anyio.abc.TaskGroup | None = None
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> ConnectionManager:
        self._group = await self._stack.enter_async_context(anyio.create_task_group())
        for config in self._servers:
            self._connections[config.name] = self._connection(config)
        return self

    def _connection(self, config: ServerConfig) -> Connection:
        assert self._group is not None, "connections are made inside `async with`"
        return Connection(
            config,
            board=self._board,
            log_dir=self._log_dir,
            group=self._group,
            notify=self._notify,
            browser=self._browser,
            oauth_dir=self._oauth_dir,
            ledger=self._ledgers.setdefault((config.name, config.url), SignInLedger()),
        )

    async def set_enabled(self, name: str, enabled: bool) -> None:
        """Turns a configured server on (started now) or off (stopped now, status `disabled`); the caller has
        written the config first, so the next host reads the same."""
        old = self.get(name)
        if old.config.enabled != enabled:
            await self.restart(name, old.config.model_copy(update={"enabled": enabled}))

    async def restart(self, name: str, config: ServerConfig | None = None) -> Connection:
        """A new connection in place of the old one (stopped first), with `config` or the same one; with a
        `config`, also a server that had none (its table was refused when the host started)."""
        old = self._connections.get(name) if config is not None else self.get(name)
        if old is not None:
            await old.stop()
            config = config or old.config
        assert config is not None
        new = self._connection(config)
        self._connections[name] = new
        self._board.set(new.initial_status())
        new.start()
        return new

    async def sign_in(self, name: str, authorize: Authorize) -> Connection:
        """The person's sign-in, one at a time (each opens a page they must finish); then the server restarts
        with the new tokens. Returns the new connection once its first start has settled."""
        connection = self.get(name)
        if self._signing_in is not None:
            raise RpcError(
                ErrorCode.INVALID_REQUEST,
                f"a sign-in to '{self._signing_in}' is under way: finish it or close its window first",
                {"server": name},
            )
        self._signing_in = name
        try:
            await connection.sign_in(authorize)
        finally:
            self._signing_in = None
        new = await self.restart(name)
        await new.wait_settled()
        return new

    async def sign_out(self, name: str) -> SignOut:
        """Forget and revoke the tokens; the server restarts without them (and says it needs a sign-in)."""
        done = await self.get(name).sign_out()
        new = await self.restart(name)
        await new.wait_settled()
        return done

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
