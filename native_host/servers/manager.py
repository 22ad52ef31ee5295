"""All configured servers, keyed by their config name: started, restarted with a new config, signed in and out
one at a time, and stopped with the host."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import anyio.abc

from core.calls.capabilities import ServerStatus

from ..config.loading import ServerConfig
from ..config.paths import data_dir
from ..process.browser_link import BrowserLink
from ..process.jsonrpc import ErrorCode, McpRequestError
from .connection import Connection
from .notifications import Notify, drop
from .oauth import Authorize, SignOut
from .refusals import SignInLedger
from .status import StatusBoard


class ConnectionManager:
    """All configured servers, keyed by their config name; supervisors run in this manager's task group."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        board: StatusBoard,
        log_dir: Path,
        notify: Notify = drop,
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

    async def reconfigure(self, name: str, config: ServerConfig | None) -> Connection:
        """The server's table as the config now says (*Retry*): a running server whose roots alone changed
        is told so (roots.py); anything else starts it again with `config`."""
        old = self._connections.get(name)
        if old is not None and config is not None and await old.take_roots(config):
            return old
        return await self.restart(name, config)

    async def sign_in(self, name: str, authorize: Authorize) -> Connection:
        """The person's sign-in, one at a time (each opens a page they must finish); then the server restarts
        with the new tokens. Returns the new connection once its first start has settled."""
        connection = self.get(name)
        if self._signing_in is not None:
            raise McpRequestError(
                ErrorCode.INVALID_REQUEST,
                f"a sign-in to '{self._signing_in}' is under way: finish it or close its window first",
                {"server": name},
            )
        self._signing_in = name
        try:
            await connection.auth.sign_in(authorize)
        finally:
            self._signing_in = None
        new = await self.restart(name)
        await new.wait_settled()
        return new

    async def sign_out(self, name: str) -> SignOut:
        """Forget and revoke the tokens; the server restarts without them (and says it needs a sign-in)."""
        done = await self.get(name).auth.sign_out()
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
            raise McpRequestError(
                ErrorCode.UNKNOWN_SERVER,
                f"unknown MCP server '{name}' (configured: {known})",
                {"server": name},
            ) from None

    def all(self) -> list[Connection]:
        return [self._connections[name] for name in sorted(self._connections)]
