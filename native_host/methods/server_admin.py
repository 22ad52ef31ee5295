"""The person's say over each server: switched on or off (in the config file first), restarted (*Retry*),
signed in and out, and its recent log messages."""

from __future__ import annotations

from pathlib import Path

import anyio

from core.messages.host_methods import EnableParams, ServerParams

from ..config.loading import load_config
from ..config.writing import ConfigWriteError, with_server_enabled, write_config
from ..process.browser_link import BrowserGone, BrowserLink
from ..process.jsonrpc import ErrorCode, JsonObject, McpRequestError, Request
from ..servers.manager import ConnectionManager
from ..servers.oauth import SIGN_IN_SECONDS, SignInFailed
from .params import parse_params


class ServerAdmin:
    def __init__(self, manager: ConnectionManager, config_path: Path, browser: BrowserLink) -> None:
        self.manager = manager
        self._config_path = config_path
        self._browser = browser

    async def servers_set_enabled(self, request: Request) -> JsonObject:
        """The person's per-server switch: the config file first (atomically, the user's text kept), then the
        running server; an unknown server or a config that cannot be changed safely changes nothing."""
        params = parse_params(EnableParams, request)
        self.manager.get(params.server)  # -32011 for a server that is not configured
        try:
            text = self._config_path.read_text(encoding="utf-8")
            write_config(
                self._config_path, with_server_enabled(self._config_path, text, params.server, params.enabled)
            )
        except (OSError, ConfigWriteError) as exc:
            raise McpRequestError(
                ErrorCode.INVALID_PARAMS, f"could not switch '{params.server}': {exc}"
            ) from None
        await self.manager.set_enabled(params.server, params.enabled)
        return {"server": params.server, "enabled": params.enabled}

    async def servers_restart(self, request: Request) -> JsonObject:
        """The person's *Retry*: the server's table is read again from the config file (a fix made there
        counts), then the server starts again now, its backoff and failure forgotten. Answers once that start
        has settled, with the server's status; a table the config now refuses is an error naming its
        problems. A running server whose `roots` alone changed is told so instead of being restarted."""
        name = parse_params(ServerParams, request).server
        loaded = await anyio.to_thread.run_sync(load_config, self._config_path)
        if name in loaded.invalid:
            problems = "; ".join(str(problem) for problem in loaded.problems_for(name))
            raise McpRequestError(
                ErrorCode.INVALID_PARAMS,
                f"could not restart '{name}': the config refuses it: {problems}",
                {"server": name},
            )
        connection = await self.manager.reconfigure(name, loaded.servers.get(name))
        await connection.wait_settled()
        return {"server": name, "status": dict(connection.status())}

    async def servers_sign_in(self, request: Request) -> JsonObject:
        """The person signs in to an OAuth server: the browser opens its page (host → browser
        `oauth/authorize`), the tokens are stored, and the server starts again with them."""
        name = parse_params(ServerParams, request).server

        async def authorize(url: str) -> str:
            try:
                answer = await self._browser.request(
                    "oauth/authorize", {"server": name, "url": url}, timeout=SIGN_IN_SECONDS
                )
            except BrowserGone as exc:
                raise SignInFailed(f"sign-in to '{name}' was not completed: {exc}") from None
            redirect = answer.get("redirectUrl") if isinstance(answer, dict) else None
            if not isinstance(redirect, str):
                raise SignInFailed(f"sign-in to '{name}': the browser sent no redirect URL")
            return redirect

        try:
            connection = await self.manager.sign_in(name, authorize)
        except SignInFailed as exc:
            raise McpRequestError(ErrorCode.SERVER_UNAVAILABLE, str(exc), {"server": name}) from None
        return {"server": name, "signedIn": True, "status": connection.status()["status"]}

    async def servers_sign_out(self, request: Request) -> JsonObject:
        name = parse_params(ServerParams, request).server
        done = await self.manager.sign_out(name)
        return {"server": name, "signedOut": done.signed_out, "revoked": done.revoked}

    async def servers_logs(self, request: Request) -> JsonObject:
        params = parse_params(ServerParams, request)
        connection = self.manager.get(params.server)
        return {"server": connection.name, "logs": connection.log_entries()}
