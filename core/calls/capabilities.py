"""What the core is given from outside (the native host, the browser), as Protocols, their error types and
the host's `ServerStatus`.

A capability is passed in when it exists and is `None` when it does not; the core never probes for one.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Literal, NotRequired, Protocol, TypedDict

# Standard library only: the native host imports the error codes before pydantic loads.


class McpErrorCode(IntEnum):
    """The one table of error codes: the host wire protocol's (contract §4; the host uses this same table),
    the runtime API's and the browser executors'. The build writes it into the extension as
    `error_codes.js`, which is where the JavaScript takes every code from."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    CANCELLED = -32800
    TIMED_OUT = -32001
    SERVER_UNAVAILABLE = -32000
    RESULT_TOO_LARGE = -32010
    UNKNOWN_SERVER = -32011
    TOOL_DISABLED = -32012
    # A browser executor found the tab showing another site than the one Python approved; `data.shown`
    # names what it shows, and Python words the answer.
    PAGE_CHANGED = -32003


class McpRequestError(Exception):
    """The one error type `{code, message, data?}` of every wire: what the core gets back from a host request,
    what the host answers with (`request_id` is known there when the request could be read), and what the
    runtime API answers a message that is not a valid request with."""

    def __init__(
        self, code: int, message: str, data: Any = None, *, request_id: str | int | None = None
    ) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message = message
        self.data = data
        self.request_id = request_id

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def to_wire(self) -> dict[str, Any]:
        """The runtime API's answer to a message that is not a valid request (contract §5)."""
        return {"error": self.to_json()}


class BrowserToolError(McpRequestError):
    """The one error shape, raised by a browser tool call that failed in the service worker, with the
    executor's code and data as it sent them; its own type so that a caller tells a browser failure from a
    host's, and the message goes back to the model."""

    def __init__(self, message: str, code: int = McpErrorCode.INTERNAL_ERROR, data: Any = None) -> None:
        super().__init__(code, message, data)


class McpCapability(Protocol):
    """The connected native host."""

    async def request(
        self, method: str, params: dict[str, Any], *, timeout_ms: int, call_id: str | None = None
    ) -> Any:
        """Send one host JSON-RPC request (contract §4) and return its `result`.

        Raises `McpRequestError`. `timeout_ms` is how long the core waits for it (the caller bounds the
        await by it); cancelling the awaiting task, for that expiry or any other reason, must cancel the
        request on the host (`$/cancelRequest`). `call_id` ties `notifications/progress` and the popup's
        Cancel to the model's tool call.
        """
        ...


class BrowserCapability(Protocol):
    """chrome.* execution in the service worker."""

    async def call(self, tool: str, args: dict[str, Any], *, timeout_ms: int) -> Any:
        """Execute one validated browser tool call and return its JSON result; raises `BrowserToolError`."""
        ...


type ServerState = Literal["starting", "ready", "restarting", "failed", "disabled"]
type Transport = Literal["stdio", "streamable_http", "sse"]
type AuthState = Literal["required", "signingIn", "signedIn"]  # an OAuth server's sign-in


class ServerStatus(TypedDict):
    """Contract §4 `ServerStatus`, as the host sends it and the core reads it (core.host_link.servers checks
    it with
    pydantic; the host builds it before pydantic loads). `tools` is the number of tools offered after the
    config's filters.

    `toolTimeoutSec`/`startupTimeoutSec` are the server's own limits, so the browser can wait as long as the
    host does; a `restarting` server says why (`error`), when the next start is due (`retryInMs`, absent while
    that start runs) and how many restarts there have been; a `failed` server's start cannot mend itself:
    `error` says what to fix, and it has neither `retryInMs` nor `restarts`. `toolsVersion` counts the times a
    ready server's `list_changed` brought a different tool list (absent until the first), so a replaced tool
    changes the status too. `auth` is an OAuth server's sign-in: `required` (it waits for the person),
    `signingIn` (a sign-in page is open) or `signedIn`; `signInError` says why the person's last sign-in
    failed, while it still waits for one (`error` holds it too, or what the server said since)."""

    name: str
    transport: Transport
    status: ServerState
    toolTimeoutSec: NotRequired[float]
    startupTimeoutSec: NotRequired[float]
    error: NotRequired[str]
    retryInMs: NotRequired[int]
    restarts: NotRequired[int]
    tools: NotRequired[int]
    toolsVersion: NotRequired[int]
    capabilities: NotRequired[dict[str, Any]]
    auth: NotRequired[AuthState]
    scope: NotRequired[str]  # with `auth: "required"`: the scope the server asked for, when it named one
    signInError: NotRequired[str]
