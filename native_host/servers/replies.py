"""How a server's answers and failures reach the browser: results as JSON, exceptions described, the -32000
of a server that cannot take requests, and paged listings walked to their end."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

import mcp_types as types
from mcp import Client, MCPError
from pydantic import BaseModel

from ..config.loading import ServerConfig
from ..process.jsonrpc import ErrorCode, McpRequestError
from .failures import CannotStart, CommandNotFound, Failure, NotExecutable
from .failures import leaf as _leaf

log = logging.getLogger(__name__)

MAX_PAGES: Final = 10_000
NOISE_KEYS: Final = ("resultType", "ttlMs", "cacheScope")


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


class Unavailable(McpRequestError):
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


async def list_tools(config: ServerConfig, client: Client) -> list[types.Tool]:
    """The server's tools the config allows (none when it has no tools)."""
    capabilities = client.server_capabilities
    if capabilities is not None and capabilities.tools is None:
        return []
    try:
        tools = await paginate(
            lambda cursor: client.list_tools(cursor=cursor), lambda page: page.tools, config.name
        )
    except MCPError as exc:
        if exc.code == types.METHOD_NOT_FOUND:
            return []
        raise
    return [tool for tool in tools if config.allows_tool(tool.name)]


def timeout_message(name: str, seconds: float) -> str:
    suggestion = max(30, int(seconds * 3))
    return (
        f"MCP client for `{name}` timed out after {seconds:g} seconds. Add or adjust `startup_timeout_sec` "
        f"in your config.toml:\n[mcp_servers.{name}]\nstartup_timeout_sec = {suggestion}"
    )


def start_error(config: ServerConfig, exc: BaseException, failure: Failure) -> str:
    """Why a start failed, for the status: what to fix when the failure says."""
    name = config.name
    leaf = _leaf(exc)
    if isinstance(leaf, (CommandNotFound, NotExecutable)):
        return f"MCP client for `{name}` failed to start: {leaf}"
    if isinstance(leaf, CannotStart):
        return f"MCP client for `{name}` cannot start: {leaf}"
    if isinstance(leaf, FileNotFoundError) and config.command:
        return f"MCP client for `{name}` failed to start: command not found: {config.command}"
    if failure.fix is not None:
        return f"MCP client for `{name}` failed to start: {failure.fix} ({describe(exc)})"
    return f"MCP client for `{name}` failed to start: {describe(exc)}"
