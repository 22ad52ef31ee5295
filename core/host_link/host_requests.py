"""One core→host request under the time limit the caller computed from the server's own timeouts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from core.calls.capabilities import McpCapability, McpErrorCode, McpRequestError
from core.calls.deadline import DeadlineExceeded, within
from core.calls.validation import format_validation_error


async def ask_host(
    mcp: McpCapability, method: str, params: dict[str, Any], *, limit_ms: int, call_id: str | None = None
) -> Any:
    """Raises `McpRequestError` for the host's own errors and `DeadlineExceeded` when the core gives up;
    the capability then cancels the request on the host (it sees its awaiting task cancelled)."""
    return await within(mcp.request(method, params, timeout_ms=limit_ms, call_id=call_id), limit_ms)


class HostMessage(BaseModel):
    """A runtime message answered by a host request: extra fields ignored, types strict."""

    model_config = ConfigDict(extra="ignore", strict=True)


def parse_message[M: BaseModel](model: type[M], message: dict[str, Any]) -> M:
    """The message as `model`, or INVALID_PARAMS naming the message type and the wrong fields."""
    try:
        return model.model_validate(message)
    except ValidationError as error:
        kind = message.get("type")
        raise McpRequestError(
            McpErrorCode.INVALID_PARAMS, f"{kind}: {format_validation_error(error)}"
        ) from None


async def ask_for_object(
    mcp: McpCapability, method: str, params: dict[str, Any], limit_ms: int
) -> dict[str, Any]:
    """The host's answer object; its errors go on as they came (code, message and data), giving up answers
    TIMED_OUT."""
    try:
        answer = await ask_host(mcp, method, params, limit_ms=limit_ms)
    except DeadlineExceeded:
        raise McpRequestError(
            McpErrorCode.TIMED_OUT, f"{method}: the native host did not answer within {limit_ms} ms"
        ) from None
    if not isinstance(answer, dict):
        raise McpRequestError(McpErrorCode.INTERNAL_ERROR, f"{method}: the host answer is not an object")
    return answer
