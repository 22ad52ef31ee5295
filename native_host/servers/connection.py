"""One configured MCP server: a supervisor task for the host's whole life, and the state it runs through.

The supervisor owns each run's `Client` from entry to exit (the SDK requires both in one task), bounds the
handshake (initialize and the first tools/list) by `startup_timeout_sec` alone, then waits until the server
goes away or the host stops. A server that exits, hangs up or fails to start is started again in the
background: backoff 1 s doubling to 60 s, back to 1 s after 60 s of health or when someone uses the server.
Its last known tools stay listed (unavailable) meanwhile, and requests to it fail at once, saying why and when
the next start is due. Requests from any task use the client while it is ready."""

from __future__ import annotations

import logging
import math
import random
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Final

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client, MCPError

from core.calls.capabilities import ServerState, ServerStatus
from core.host_link.servers import unavailable_message

from ..config.loading import ServerConfig
from ..config.preview import MAX_TIMEOUT_SEC
from ..process.browser_link import BrowserLink
from .declared import declared
from .elicitation import elicitor
from .failures import Mend, classify
from .handshake import CLIENT_INFO, bounded_probe
from .notifications import SERVER_LOG_LEVEL, Notify, ServerMessages, drop
from .refusals import SignInLedger
from .replies import Unavailable, describe, list_tools, start_error, timeout_message, to_json
from .roots import ServerRoots
from .server_logs import LogEntry, LogRing
from .sign_in import ServerSignIn, sign_in_message
from .status import StatusBoard
from .transports import Run, open_transport, server_scrubber, watched

log = logging.getLogger(__name__)

FIRST_RETRY_SECONDS: Final = 1.0
MAX_RETRY_SECONDS: Final = 60.0
RETRY_SPREAD: Final = 0.25
HEALTHY_SECONDS: Final = 60.0  # a server up this long starts its backoff over when it next goes away
CLOSED_REASON: Final = "connection closed"


def retry_delay(failures: int, jitter: float = 0.0) -> float:
    """The wait before the next start after `failures` (>= 1) runs in a row that ended badly, lengthened by up
    to `RETRY_SPREAD` of itself as `jitter` (0–1) goes: servers that failed together (all out of their start
    limit on a busy machine) must not start again together and fail together again."""
    base = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2.0 ** min(failures - 1, 16))
    return base * (1.0 + RETRY_SPREAD * jitter)


class Connection:
    """One configured server: its status, its last known tools, and the supervisor that starts it (again)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        board: StatusBoard,
        log_dir: Path,
        group: anyio.abc.TaskGroup,
        notify: Notify = drop,
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
        self.roots = ServerRoots(self.name, config.roots)
        self._run: Run | None = None
        self._state: ServerState = "starting" if config.enabled else "disabled"
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
        self.scrub = server_scrubber(config)
        self.logs = LogRing(self.scrub)
        self._messages = ServerMessages(self.name, self.scrub, self.logs, notify, group, self.refresh_tools)
        self.auth = ServerSignIn(
            config,
            oauth_dir=oauth_dir,
            ledger=ledger,
            scrub=self.scrub,
            startup_timeout=self.startup_timeout,
            publish=self._publish,
            failed=self._failed_sign_in,
        )

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
            self._run = Run()  # now, so that requests arriving before the supervisor runs see a start
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
            raise self.unavailable()
        self._nudge()
        raise self.unavailable()

    def unavailable(self) -> Unavailable:
        retry_in_ms = None if self._retry_at is None else (self._retry_at - anyio.current_time()) * 1000
        return Unavailable(self.name, unavailable_message(self.name, self._state, self._error, retry_in_ms))

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

    async def take_roots(self, config: ServerConfig) -> bool:
        """`config` without a restart, when it changes only the roots of a running server that has roots
        (the capability stays as declared); False when it takes a restart."""
        run, old = self._run, self.config
        if run is None or not self.available or not (old.roots and config.roots) or config == old:
            return False
        if config.model_copy(update={"roots": old.roots}) != old:
            return False
        try:
            await self.roots.change(run.client, config.roots)
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            log.info("server %s: could not tell it its roots changed (%s): restarting it", self.name, exc)
            return False
        self.config = config
        log.info("server %s: roots changed to %s", self.name, ", ".join(config.roots))
        return True

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
            tools = await list_tools(self.config, run.client)
        if run.client is None:
            return False
        if tools != self._tools:
            # The status changes even when only a tool's schema did: the browser refetches on it.
            self._tools_version += 1
        self._tools = tools
        self._publish()
        return True

    # -- the supervisor ----------------------------------------------------------------------------------

    async def _supervise(self, run: Run) -> None:
        try:
            while not self._stopping:
                self._run = run
                self._retry_at = None
                self._publish()
                permanent = await self._start(run) or self.auth.needed
                if self._stopping:
                    return
                self._ended(run, CLOSED_REASON)  # a run never ends unaccounted: that would restart at once
                if permanent:
                    self._state = "failed"
                    self._publish()
                    return
                await self._sit_out_backoff()
                run = Run()
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

    async def _start(self, run: Run) -> bool:
        """One run, from spawn to exit; True when it cannot start and retrying cannot help."""
        config = self.config
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + self.startup_timeout) as startup:
                run.startup = startup
                async with AsyncExitStack() as stack:
                    transport = await open_transport(
                        config,
                        stack,
                        run,
                        log_dir=self._log_dir,
                        scrub=self.scrub,
                        auth=self.auth.provider(run),
                    )
                    if config.handshake == "auto":
                        abort_post = config.transport == "streamable_http"
                        transport = bounded_probe(transport, abort_post=abort_post)
                    client = await stack.enter_async_context(
                        Client(
                            watched(transport, run.lost),
                            mode=config.handshake,
                            # No session-wide limit: the startup scope bounds the handshake, and every
                            # request after it carries its own (tool_timeout_sec or the caller's).
                            read_timeout_seconds=None,
                            client_info=CLIENT_INFO,
                            message_handler=self._messages.on_message,
                            logging_callback=self._messages.on_log,
                            log_level=SERVER_LOG_LEVEL,
                            cache=None,
                            **declared(self._elicitor, self.roots.callback()),
                        )
                    )
                    tools = await list_tools(self.config, client)
                    startup.deadline = math.inf
                    run.startup = None
                    self._tools, run.client = tools, client
                    run.ready_at = anyio.current_time()
                    self._state, self._error = "ready", None
                    self._publish()
                    self._settle(run)
                    log.info("server %s ready (%d tools)", self.name, len(tools))
                    async with anyio.create_task_group() as listening:
                        listening.start_soon(self._messages.listen, client)
                        await run.lost.wait()
                        listening.cancel_scope.cancel()
                    run.client = None
                    self._ended(run, CLOSED_REASON + " (the server exited or hung up)")
            if startup.cancelled_caught and run.refusal is not None:
                failure = classify(run.refusal)
                permanent = failure.mend is Mend.FIX
                self._ended(run, start_error(self.config, run.refusal, failure), permanent=permanent)
                return permanent
            if startup.cancelled_caught:
                self._ended(run, timeout_message(self.name, self.startup_timeout))
        except Exception as exc:
            if run.ready_at is None:
                failure = classify(exc, http_status=run.http_status, url=config.url)
                permanent = failure.mend is Mend.FIX
                self._ended(run, start_error(self.config, exc, failure), permanent=permanent)
                return permanent
            else:  # often raised by the transport's close, after the loss was announced: the better reason
                self._ended(run, f"MCP server '{self.name}' failed: {describe(exc)}", refine=True)
        finally:
            run.client = run.startup = None
            self._settle(run)
        return False

    def _settle(self, run: Run) -> None:
        run.settled.set()
        self._first_settled.set()

    def _ended(self, run: Run, reason: str, *, permanent: bool = False, refine: bool = False) -> None:
        """Account for the end of `run` once: why, the backoff, the status. With `refine`, a run already
        accounted for gets this reason instead of the one it had."""
        if self._stopping:
            return
        if self.auth.needed:
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
        delay = retry_delay(self._failures, random.random())
        self._retry_at = now + delay
        self._state = "restarting"
        log.warning("server %s: %s; restarting in %g s", self.name, self._error, delay)
        self._publish()

    def _failed_sign_in(self, error: str) -> None:
        self._error = error

    def log_entries(self) -> list[LogEntry]:
        return self.logs.entries()

    def _publish(self) -> None:
        if self._stopping:
            return  # a stopped connection's last words must not cover its successor's status
        self._board.set(self._status(self._run))

    def _status(self, run: Run | None) -> ServerStatus:
        status: ServerStatus = {
            "name": self.name,
            "transport": self.config.transport,
            "status": self._state,
            "toolTimeoutSec": self.tool_timeout,
            "startupTimeoutSec": self.startup_timeout,
        }
        self.auth.add_status(status)
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
