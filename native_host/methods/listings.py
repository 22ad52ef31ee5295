"""The listings of contract §4: tools (the last known ones, from every server), and resources, resource
templates and prompts (asked of the servers: one server's, or every enabled server's gathered)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

import anyio
import mcp_types as types
from mcp import Client, MCPError
from pydantic import BaseModel

from core.calls.names import qualified_mcp_tool_name
from core.messages.host_methods import AnyServerParams

from ..process.jsonrpc import ErrorCode, JsonObject, McpRequestError, Request
from ..servers.apps import tool_ui
from ..servers.connection import Connection
from ..servers.manager import ConnectionManager
from ..servers.replies import paginate, to_json
from .params import parse_params
from .server_use import use

TOOL_KEYS: Final = ("title", "description", "inputSchema", "outputSchema", "annotations")
LISTING_WAIT_SECONDS: Final = 1.0  # contract §4: no listing waits longer for servers still starting


@dataclass(frozen=True)
class Verb:
    """One list verb: the answer's key, the capability it needs, one page of it; `paged` verbs answer one
    server's listing a page at a time (the caller passes the cursor), the others with every page."""

    key: str
    supported: Callable[[types.ServerCapabilities], object]
    fetch: Callable[[Client, str | None], Awaitable[BaseModel]]
    paged: bool


RESOURCES: Final = Verb(
    "resources",
    lambda caps: caps.resources,
    lambda client, cursor: client.list_resources(cursor=cursor),
    True,
)
TEMPLATES: Final = Verb(
    "resourceTemplates",
    lambda caps: caps.resources,
    lambda client, cursor: client.list_resource_templates(cursor=cursor),
    True,
)
PROMPTS: Final = Verb(
    "prompts", lambda caps: caps.prompts, lambda client, cursor: client.list_prompts(cursor=cursor), False
)


class Listings:
    def __init__(self, manager: ConnectionManager) -> None:
        self.manager = manager

    async def tools_list(self, request: Request) -> JsonObject:
        params = parse_params(AnyServerParams, request)
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
                if (ui := tool_ui(tool)) is not None:
                    entry["ui"] = ui  # MCP Apps: the core checks it (core/host_link/app_meta.py)
                entry["available"] = available
                tools.append(entry)
        tools.sort(key=lambda entry: entry["qualifiedName"])
        return {"tools": tools}

    async def resources_list(self, request: Request) -> JsonObject:
        return await self._listing(request, RESOURCES)

    async def templates_list(self, request: Request) -> JsonObject:
        return await self._listing(request, TEMPLATES)

    async def prompts_list(self, request: Request) -> JsonObject:
        return await self._listing(request, PROMPTS)

    async def _listing(self, request: Request, verb: Verb) -> JsonObject:
        params = parse_params(AnyServerParams, request)
        if params.server is None:
            if params.cursor is not None and verb.paged:  # a prompt listing has no pages to ask for
                raise McpRequestError(
                    ErrorCode.INVALID_PARAMS,
                    f"{request.method}: `cursor` needs `server` (cursors are per server)",
                )
            return await self._gather(verb)
        connection = self.manager.get(params.server)
        await self._settle_briefly([connection])
        if not verb.paged:
            return {
                verb.key: [
                    {"server": connection.name, **item} for item in await _every_page(connection, verb)
                ]
            }
        page = await use(
            connection, lambda client: _one_page(client, verb, params.cursor), wait_for_start=False
        )
        answer: JsonObject = {"server": params.server, verb.key: page.get(verb.key, [])}
        if page.get("nextCursor") is not None:
            answer["nextCursor"] = page["nextCursor"]
        return answer

    async def _gather(self, verb: Verb) -> JsonObject:
        """One listing from every enabled server, concurrently; failures, and servers not ready after a
        brief wait, go to `failedServers`."""
        connections = self._targets(None)
        await self._settle_briefly(connections)
        found: dict[str, list[JsonObject]] = {}
        failed: dict[str, str] = {}

        async def one(connection: Connection) -> None:
            try:
                found[connection.name] = [
                    {"server": connection.name, **item} for item in await _every_page(connection, verb)
                ]
            except McpRequestError as exc:
                failed[connection.name] = exc.message

        async with anyio.create_task_group() as group:
            for connection in connections:
                group.start_soon(one, connection)
        return {
            verb.key: [item for name in sorted(found) for item in found[name]],
            "failedServers": [{"server": name, "message": failed[name]} for name in sorted(failed)],
        }

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


async def _asked[T](client: Client, verb: Verb, ask: Callable[[], Awaitable[T]], empty: T) -> T:
    """`ask`, or `empty` from a server without the verb's capability (or one that answers -32601)."""
    capabilities = client.server_capabilities
    if capabilities is not None and not verb.supported(capabilities):
        return empty
    try:
        return await ask()
    except MCPError as exc:
        if exc.code == types.METHOD_NOT_FOUND:
            return empty
        raise


async def _one_page(client: Client, verb: Verb, cursor: str | None) -> JsonObject:
    async def page() -> JsonObject:
        return to_json(await verb.fetch(client, cursor))

    return await _asked(client, verb, page, {verb.key: []})


async def _every_page(connection: Connection, verb: Verb) -> list[JsonObject]:
    def entries(page: BaseModel) -> list[JsonObject]:
        items: list[JsonObject] = to_json(page).get(verb.key, [])
        return items

    async def walk(client: Client) -> list[JsonObject]:
        async def pages() -> list[JsonObject]:
            return await paginate(lambda cursor: verb.fetch(client, cursor), entries, connection.name)

        return await _asked(client, verb, pages, [])

    return await use(connection, walk, wait_for_start=False)
