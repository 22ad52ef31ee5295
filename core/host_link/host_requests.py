"""One core→host request under the time limit the caller computed from the server's own timeouts."""

from __future__ import annotations

from typing import Any

from core.calls.capabilities import McpCapability, McpErrorCode, McpRequestError
from core.calls.deadline import DeadlineExceeded, within
from core.messages.host_methods import HostMethod, HostParams


async def ask_host[P: HostParams](
    mcp: McpCapability, method: HostMethod[P], params: P, *, limit_ms: int, call_id: str | None = None
) -> Any:
    """`method` with `params`, its one model (core/messages/host_methods.py), the host parses them with.

    Raises `McpRequestError` for the host's own errors and `DeadlineExceeded` when the core gives up;
    the capability then cancels the request on the host (it sees its awaiting task cancelled)."""
    if type(params) is not method.params:
        raise TypeError(f"{method.name} is sent with {method.params.__name__}, not {type(params).__name__}")
    wire = params.to_wire()
    return await within(mcp.request(method.name, wire, timeout_ms=limit_ms, call_id=call_id), limit_ms)


async def ask_for_object[P: HostParams](
    mcp: McpCapability, method: HostMethod[P], params: P, limit_ms: int
) -> dict[str, Any]:
    """The host's answer object; its errors go on as they came (code, message and data), giving up answers
    TIMED_OUT."""
    try:
        answer = await ask_host(mcp, method, params, limit_ms=limit_ms)
    except DeadlineExceeded:
        raise McpRequestError(
            McpErrorCode.TIMED_OUT, f"{method.name}: the native host did not answer within {limit_ms} ms"
        ) from None
    if not isinstance(answer, dict):
        raise McpRequestError(McpErrorCode.INTERNAL_ERROR, f"{method.name}: the host answer is not an object")
    return answer
