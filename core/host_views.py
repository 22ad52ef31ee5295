"""Runtime messages that show people what the host's servers hold besides tools: prompts and server logs.

Each is one host request (contract §4) under the limit the server's own config gives; the host's errors keep
their code and message, and a request the core gives up on answers -32001."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from core.capabilities import McpCapability, McpErrorCode, McpRequestError
from core.deadline import DeadlineExceeded
from core.errors import RequestError
from core.host_requests import ask_host
from core.servers import ServerBoard
from core.validation import format_validation_error


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class PromptsMessage(_Message):
    server: str | None = None


class PromptGetMessage(_Message):
    server: str
    name: str
    arguments: dict[str, str] | None = None


class ServerLogsMessage(_Message):
    server: str


def _parse[M: _Message](model: type[M], message: dict[str, Any]) -> M:
    try:
        return model.model_validate(message)
    except ValidationError as error:
        kind = message.get("type")
        raise RequestError(McpErrorCode.INVALID_PARAMS, f"{kind}: {format_validation_error(error)}") from None


async def _ask(mcp: McpCapability, method: str, params: dict[str, Any], limit_ms: int) -> dict[str, Any]:
    try:
        answer = await ask_host(mcp, method, params, limit_ms=limit_ms)
    except McpRequestError as error:
        raise RequestError(error.code, error.message) from None
    except DeadlineExceeded:
        raise RequestError(
            McpErrorCode.TIMED_OUT, f"{method}: the native host did not answer within {limit_ms} ms"
        ) from None
    if not isinstance(answer, dict):
        raise RequestError(McpErrorCode.INTERNAL_ERROR, f"{method}: the host answer is not an object")
    return answer


async def prompts(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"prompts", server?}` → the host's `prompts/list`."""
    parsed = _parse(PromptsMessage, message)
    if parsed.server is None:
        return await _ask(mcp, "prompts/list", {}, servers.all_servers_limit_ms())
    return await _ask(mcp, "prompts/list", {"server": parsed.server}, servers.request_limit_ms(parsed.server))


async def prompt_get(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"prompt/get", server, name, arguments?}` → the host's `prompts/get`: a GetPromptResult."""
    parsed = _parse(PromptGetMessage, message)
    params: dict[str, Any] = {"server": parsed.server, "name": parsed.name}
    if parsed.arguments is not None:
        params["arguments"] = parsed.arguments
    return await _ask(mcp, "prompts/get", params, servers.request_limit_ms(parsed.server))


async def server_logs(mcp: McpCapability, servers: ServerBoard, message: dict[str, Any]) -> dict[str, Any]:
    """`{type:"server/logs", server}` → the host's `servers/logs`: answered from what the host keeps."""
    parsed = _parse(ServerLogsMessage, message)
    return await _ask(mcp, "servers/logs", {"server": parsed.server}, servers.tools_list_limit_ms())
