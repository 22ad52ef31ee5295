"""One core→host request under the time limit the caller computed from the server's own timeouts."""

from __future__ import annotations

from typing import Any

from core.capabilities import McpCapability
from core.deadline import within


async def ask_host(
    mcp: McpCapability, method: str, params: dict[str, Any], *, limit_ms: int, call_id: str | None = None
) -> Any:
    """Raises `McpRequestError` for the host's own errors and `DeadlineExceeded` when the core gives up;
    the capability then cancels the request on the host (it sees its awaiting task cancelled)."""
    return await within(mcp.request(method, params, timeout_ms=limit_ms, call_id=call_id), limit_ms)
