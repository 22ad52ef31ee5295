"""Requests on the event loop: the MCP methods of contract §4, one task per request, cancellable."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import Client, MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.names import qualified_mcp_tool_name

from ..config.loading import load_config
from ..config.paths import default_config_path, log_dir
from ..config.preview import MAX_TIMEOUT_SEC, preview_statuses
from ..config.redact import KNOWN_SECRETS, scrub_data
from ..config.writing import ConfigWriteError, with_server_enabled, write_config
from ..gateway.service import Gateway
from ..process.browser_link import BrowserGone, BrowserLink
from ..process.jsonrpc import (
    CANCEL_METHOD,
    ErrorCode,
    JsonObject,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from ..process.outbox import Outbox
from ..servers.connection import Connection
from ..servers.manager import ConnectionManager
from ..servers.oauth import SIGN_IN_SECONDS, SignInFailed
from ..servers.replies import describe, paginate, to_json
from ..servers.status import ServerStatus, StatusBoard
from .uploads import UploadRefused, check_upload

log = logging.getLogger(__name__)

TOOL_KEYS = ("title", "description", "inputSchema", "outputSchema", "annotations")
LISTING_WAIT_SECONDS: Final = 1.0  # contract §4: no listing waits longer for servers still starting


class _Params(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ServerParam(_Params):
    server: str | None = None


class CursorParams(_Params):
    server: str | None = None
    cursor: str | None = None


class CallParams(_Params):
    server: str
    tool: str
    arguments: dict[str, Any] | None = None
    timeout_ms: float | None = Field(default=None, alias="timeoutMs", gt=0, allow_inf_nan=False)


class ServerParams(_Params):
    """Params naming one configured server (logs, sign-in, sign-out)."""

    server: str


class EnableParams(_Params):
    model_config = ConfigDict(extra="ignore", strict=True)
    server: str
    enabled: bool


class ReadParams(_Params):
    server: str
    uri: str


class PromptParams(_Params):
    server: str
    name: str
    arguments: dict[str, str] | None = None


class UploadParams(_Params):
    model_config = ConfigDict(extra="ignore", strict=True)
    paths: list[str]
    folders: list[str]


class CancelParams(_Params):
    id: RequestId


def _params[P: _Params](model: type[P], request: Request) -> P:
    try:
        return model.model_validate(request.params)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        raise RpcError(
            ErrorCode.INVALID_PARAMS, f"invalid params for {request.method}: {where}: {first['msg']}"
        ) from None


class Dispatcher:
    def __init__(
        self,
        config_path: Path | None,
        board: StatusBoard,
        outbox: Outbox,
        gateway: Gateway,
        browser: BrowserLink,
    ) -> None:
        self._config_path = config_path or default_config_path()
        self._gateway = gateway
        self._browser = (
            browser  # host → browser requests (the gateway's, and servers' requests to the person)
        )
        self._board = board
        self._outbox = outbox
        self._running: dict[RequestId, anyio.CancelScope] = {}
        self._manager: ConnectionManager | None = None
        self._methods: dict[str, Callable[[Request], Awaitable[object]]] = {
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/templates/list": self._templates_list,
            "resources/read": self._resources_read,
            "prompts/list": self._prompts_list,
            "prompts/get": self._prompts_get,
            "servers/logs": self._servers_logs,
            "servers/setEnabled": self._servers_set_enabled,
            "servers/restart": self._servers_restart,
            "servers/signIn": self._servers_sign_in,
            "servers/signOut": self._servers_sign_out,
            "files/checkUpload": self._files_check_upload,
        }

    async def __aenter__(self) -> Dispatcher:
        config = load_config(self._config_path)
        for problem in config.problems:
            log.warning("config: %s", problem)
        self._manager = await ConnectionManager(
            list(config.servers.values()),
            board=self._board,
            log_dir=log_dir(),
            notify=self._outbox.notify,
            browser=self._browser,
        ).__aenter__()
        statuses = self._manager.initial_statuses()
        previews = {status["name"]: status for status in preview_statuses(self._config_path)}
        for name, transport in config.invalid.items():
            message = "; ".join(str(p) for p in config.problems_for(name))
            status = ServerStatus(name=name, transport=transport, status="failed", error=message)
            if name in previews:  # the limits as far as the broken table tells them
                status["toolTimeoutSec"] = previews[name]["toolTimeoutSec"]
                status["startupTimeoutSec"] = previews[name]["startupTimeoutSec"]
            statuses.append(status)
        self._board.replace(statuses)
        self._manager.start_all()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._manager is not None:
            await self._manager.__aexit__(exc_type, exc, tb)

    @property
    def manager(self) -> ConnectionManager:
        assert self._manager is not None, "the dispatcher is used inside `async with`"
        return self._manager

    # -- request lifecycle -------------------------------------------------------------------------------

    async def handle(self, message: Request | Notification | Response) -> None:
        if isinstance(message, Response):
            self._browser.deliver(message)
            return
        if isinstance(message, Notification):
            if message.method == CANCEL_METHOD:
                self._cancel(message)
            else:
                self._gateway.notification(message)
            return
        if message.id in self._running:
            self._outbox.error(
                message.id,
                RpcError(ErrorCode.INVALID_REQUEST, f"request id {message.id!r} is already in use"),
            )
            return
        with anyio.CancelScope() as scope:
            self._running[message.id] = scope
            try:
                result = await self._call(message)
            except RpcError as exc:
                self._outbox.error(message.id, exc)
            except Exception as exc:
                log.exception("request %r (%s) failed", message.id, message.method)
                self._outbox.error(
                    message.id, RpcError(ErrorCode.INTERNAL_ERROR, f"internal error: {describe(exc)}")
                )
            else:
                # Whatever a server sent back (tool results, resource contents, prompts, listings) leaves
                # without the configured secrets: a server that echoes one must not hand it to the browser.
                self._outbox.result(message.id, scrub_data(result, KNOWN_SECRETS))
            finally:
                del self._running[message.id]
        if scope.cancelled_caught:
            self._outbox.error(message.id, RpcError(ErrorCode.CANCELLED, "request cancelled"))

    def _cancel(self, message: Notification) -> None:
        try:
            target = CancelParams.model_validate(message.params).id
        except ValidationError:
            log.info("ignoring $/cancelRequest without a usable id")
            return
        scope = self._running.get(target)
        if scope is not None:
            scope.cancel()

    async def _call(self, request: Request) -> object:
        method = self._methods.get(request.method)
        if method is None:
            raise RpcError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {request.method!r}")
        return await method(request)

    # -- talking to one server ---------------------------------------------------------------------------

    async def _use[T](
        self,
        connection: Connection,
        action: Callable[[Client], Awaitable[T]],
        timeout: float | None = None,
        *,
        wait_for_start: bool = True,
    ) -> T:
        """Run `action` on the server's client within `timeout` (the server's `tool_timeout_sec` by default),
        turning every failure into the protocol's error codes, with the server's secrets taken out."""
        client = await connection.client() if wait_for_start else connection.ready_client()
        name = connection.name
        seconds = connection.tool_timeout if timeout is None else min(timeout, MAX_TIMEOUT_SEC)
        scrub = connection.scrub
        try:
            # When this scope or the caller's ends a request, the SDK sends notifications/cancelled.
            with anyio.fail_after(seconds):
                return await action(client)
        except TimeoutError:
            raise RpcError(
                ErrorCode.TIMED_OUT,
                f"MCP server '{name}' did not answer within {seconds:g} s. If it needs longer, raise "
                f"`tool_timeout_sec` under [mcp_servers.{name}] in the host's config "
                "(`tabgate-host config path` names the file), then try again.",
                {"server": name},
            ) from None
        except MCPError as exc:
            if (refused := connection.auth.refusal(exc)) is not None:  # a 401, or a 403 asking for more scope
                raise refused from None
            if exc.code == types.CONNECTION_CLOSED:
                connection.connection_lost()
                raise connection.unavailable() from None
            data: dict[str, Any] = {"server": name}
            if isinstance(exc.data, dict):
                data = {**scrub_data(exc.data, scrub), "server": name}
            elif exc.data is not None:
                data["data"] = scrub_data(exc.data, scrub)
            raise RpcError(exc.code, scrub(exc.message), data) from None
        except ValidationError as exc:
            raise RpcError(
                ErrorCode.INTERNAL_ERROR,
                scrub(f"MCP server '{name}' sent an invalid answer: {exc}"),
                {"server": name},
            ) from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            connection.connection_lost()
            raise connection.unavailable() from None

    async def _list_all[P: BaseModel, T](
        self,
        connection: Connection,
        supported: Callable[[types.ServerCapabilities], object],
        fetch: Callable[[Client, str | None], Awaitable[P]],
        items: Callable[[P], list[T]],
    ) -> list[T]:
        """Every page of one list verb; a server without the capability (or -32601) has an empty list."""

        async def walk(client: Client) -> list[T]:
            capabilities = client.server_capabilities
            if capabilities is not None and not supported(capabilities):
                return []
            try:
                return await paginate(lambda cursor: fetch(client, cursor), items, connection.name)
            except MCPError as exc:
                if exc.code == types.METHOD_NOT_FOUND:
                    return []
                raise

        return await self._use(connection, walk, wait_for_start=False)

    def _targets(self, server: str | None) -> list[Connection]:
        if server is not None:
            return [self.manager.get(server)]
        return [c for c in self.manager.all() if c.config.enabled]

    async def _settle_briefly(self, connections: list[Connection]) -> None:
        """Give starts under way up to LISTING_WAIT_SECONDS (together) to finish; listings then answer with
        what is ready, so a hung or slow server never holds them up."""
        with anyio.move_on_after(LISTING_WAIT_SECONDS):
            for connection in connections:
                await connection.wait_attempt()

    # -- methods -----------------------------------------------------------------------------------------

    async def _tools_list(self, request: Request) -> JsonObject:
        params = _params(ServerParam, request)
        connections = self._targets(params.server)
        await self._settle_briefly(connections)
        tools = []
        for connection in connections:
            # A server that is down keeps its last known tools, marked unavailable (contract §4).
            available = connection.available
            for tool in connection.tools:
                data = to_json(tool)
                entry: JsonObject = {
                    "server": connection.name,
                    "name": tool.name,
                    "qualifiedName": qualified_mcp_tool_name(connection.name, tool.name),
                }
                entry.update({key: data[key] for key in TOOL_KEYS if key in data})
                entry["available"] = available
                tools.append(entry)
        tools.sort(key=lambda entry: entry["qualifiedName"])
        return {"tools": tools}

    async def _tools_call(self, request: Request) -> JsonObject:
        params = _params(CallParams, request)
        connection = self.manager.get(params.server)
        if not connection.config.allows_tool(params.tool):
            raise RpcError(
                ErrorCode.TOOL_DISABLED,
                f"tool '{params.tool}' of MCP server '{params.server}' is disabled by the config "
                "(enabled_tools / disabled_tools)",
                {"server": params.server},
            )
        timeout = params.timeout_ms / 1000 if params.timeout_ms is not None else None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            note: JsonObject = {"requestId": request.id, "progress": progress}
            if total is not None:
                note["total"] = total
            if message is not None:
                note["message"] = KNOWN_SECRETS(message)
            self._outbox.notify("notifications/progress", note)

        async def call(client: Client) -> types.CallToolResult:
            # send_request, not call_tool: the host passes results through; checking structuredContent against
            # outputSchema (and the extra tools/list that may take) is the caller's business.
            return await client.session.send_request(
                types.CallToolRequest(
                    params=types.CallToolRequestParams(name=params.tool, arguments=params.arguments)
                ),
                types.CallToolResult,
                progress_callback=report,
            )

        return to_json(await self._use(connection, call, timeout))

    async def _resources_list(self, request: Request) -> JsonObject:
        return await self._paged_listing(
            request,
            key="resources",
            supported=lambda caps: caps.resources,
            fetch=lambda client, cursor: client.list_resources(cursor=cursor),
        )

    async def _templates_list(self, request: Request) -> JsonObject:
        return await self._paged_listing(
            request,
            key="resourceTemplates",
            supported=lambda caps: caps.resources,
            fetch=lambda client, cursor: client.list_resource_templates(cursor=cursor),
        )

    async def _paged_listing(
        self,
        request: Request,
        *,
        key: str,
        supported: Callable[[types.ServerCapabilities], object],
        fetch: Callable[[Client, str | None], Awaitable[BaseModel]],
    ) -> JsonObject:
        params = _params(CursorParams, request)

        def entries(page: BaseModel) -> list[JsonObject]:
            items: list[JsonObject] = to_json(page).get(key, [])
            return items

        if params.server is not None:
            connection = self.manager.get(params.server)
            await self._settle_briefly([connection])

            async def one_page(client: Client) -> JsonObject:
                capabilities = client.server_capabilities
                if capabilities is not None and not supported(capabilities):
                    return {key: []}
                try:
                    return to_json(await fetch(client, params.cursor))
                except MCPError as exc:
                    if exc.code == types.METHOD_NOT_FOUND:
                        return {key: []}
                    raise

            page = await self._use(connection, one_page, wait_for_start=False)
            answer: JsonObject = {"server": params.server, key: page.get(key, [])}
            if page.get("nextCursor") is not None:
                answer["nextCursor"] = page["nextCursor"]
            return answer
        if params.cursor is not None:
            raise RpcError(
                ErrorCode.INVALID_PARAMS,
                f"{request.method}: `cursor` needs `server` (cursors are per server)",
            )
        return await self._gather(
            key, lambda connection: self._list_all(connection, supported, fetch, entries)
        )

    async def _gather(
        self, key: str, listing: Callable[[Connection], Awaitable[list[JsonObject]]]
    ) -> JsonObject:
        """One listing from every enabled server, concurrently; failures, and servers not ready after a
        brief wait, go to `failedServers`."""
        connections = self._targets(None)
        await self._settle_briefly(connections)
        found: dict[str, list[JsonObject]] = {}
        failed: dict[str, str] = {}

        async def one(connection: Connection) -> None:
            try:
                found[connection.name] = [
                    {"server": connection.name, **item} for item in await listing(connection)
                ]
            except RpcError as exc:
                failed[connection.name] = exc.message

        async with anyio.create_task_group() as group:
            for connection in connections:
                group.start_soon(one, connection)
        return {
            key: [item for name in sorted(found) for item in found[name]],
            "failedServers": [{"server": name, "message": failed[name]} for name in sorted(failed)],
        }

    async def _resources_read(self, request: Request) -> JsonObject:
        params = _params(ReadParams, request)
        connection = self.manager.get(params.server)
        result = await self._use(connection, lambda client: client.read_resource(params.uri))
        return {"contents": to_json(result).get("contents", [])}

    async def _prompts_list(self, request: Request) -> JsonObject:
        params = _params(ServerParam, request)

        def entries(page: types.ListPromptsResult) -> list[JsonObject]:
            return [to_json(prompt) for prompt in page.prompts]

        def listing(connection: Connection) -> Awaitable[list[JsonObject]]:
            return self._list_all(
                connection,
                lambda caps: caps.prompts,
                lambda client, cursor: client.list_prompts(cursor=cursor),
                entries,
            )

        if params.server is not None:
            connection = self.manager.get(params.server)
            await self._settle_briefly([connection])
            return {"prompts": [{"server": connection.name, **item} for item in await listing(connection)]}
        return await self._gather("prompts", listing)

    async def _prompts_get(self, request: Request) -> JsonObject:
        params = _params(PromptParams, request)
        connection = self.manager.get(params.server)
        result = await self._use(connection, lambda client: client.get_prompt(params.name, params.arguments))
        return to_json(result)

    async def _servers_set_enabled(self, request: Request) -> JsonObject:
        """The person's per-server switch: the config file first (atomically, the user's text kept), then the
        running server; an unknown server or a config that cannot be changed safely changes nothing."""
        params = _params(EnableParams, request)
        self.manager.get(params.server)  # -32011 for a server that is not configured
        try:
            text = self._config_path.read_text(encoding="utf-8")
            write_config(
                self._config_path, with_server_enabled(self._config_path, text, params.server, params.enabled)
            )
        except (OSError, ConfigWriteError) as exc:
            raise RpcError(ErrorCode.INVALID_PARAMS, f"could not switch '{params.server}': {exc}") from None
        await self.manager.set_enabled(params.server, params.enabled)
        return {"server": params.server, "enabled": params.enabled}

    async def _servers_restart(self, request: Request) -> JsonObject:
        """The person's *Retry*: the server's table is read again from the config file (a fix made there
        counts), then the server starts again now, its backoff and failure forgotten. Answers once that start
        has settled, with the server's status; a table the config now refuses is an error naming its
        problems."""
        name = _params(ServerParams, request).server
        loaded = await anyio.to_thread.run_sync(load_config, self._config_path)
        if name in loaded.invalid:
            problems = "; ".join(str(problem) for problem in loaded.problems_for(name))
            raise RpcError(
                ErrorCode.INVALID_PARAMS,
                f"could not restart '{name}': the config refuses it: {problems}",
                {"server": name},
            )
        connection = await self.manager.restart(name, loaded.servers.get(name))
        await connection.wait_settled()
        return {"server": name, "status": dict(connection.status())}

    async def _servers_sign_in(self, request: Request) -> JsonObject:
        """The person signs in to an OAuth server: the browser opens its page (host → browser
        `oauth/authorize`), the tokens are stored, and the server starts again with them."""
        name = _params(ServerParams, request).server

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
            raise RpcError(ErrorCode.SERVER_UNAVAILABLE, str(exc), {"server": name}) from None
        return {"server": name, "signedIn": True, "status": connection.status()["status"]}

    async def _servers_sign_out(self, request: Request) -> JsonObject:
        name = _params(ServerParams, request).server
        done = await self.manager.sign_out(name)
        return {"server": name, "signedOut": done.signed_out, "revoked": done.revoked}

    async def _files_check_upload(self, request: Request) -> JsonObject:
        params = _params(UploadParams, request)
        try:
            paths = await anyio.to_thread.run_sync(check_upload, params.paths, params.folders)
        except UploadRefused as exc:
            raise RpcError(ErrorCode.INVALID_PARAMS, str(exc)) from None
        return {"paths": paths}

    async def _servers_logs(self, request: Request) -> JsonObject:
        params = _params(ServerParams, request)
        connection = self.manager.get(params.server)
        return {"server": connection.name, "logs": connection.log_entries()}
