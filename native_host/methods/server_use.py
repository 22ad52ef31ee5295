"""Talking to one server: a request on its client within a time limit, every failure turned into the
protocol's error codes, with the server's secrets taken out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError
from pydantic import ValidationError

from ..config.preview import MAX_TIMEOUT_SEC
from ..config.redact import scrub_data
from ..process.jsonrpc import ErrorCode, McpRequestError
from ..servers.connection import Connection


async def use[T](
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
        raise McpRequestError(
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
        raise McpRequestError(exc.code, scrub(exc.message), data) from None
    except ValidationError as exc:
        raise McpRequestError(
            ErrorCode.INTERNAL_ERROR,
            scrub(f"MCP server '{name}' sent an invalid answer: {exc}"),
            {"server": name},
        ) from None
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        connection.connection_lost()
        raise connection.unavailable() from None
