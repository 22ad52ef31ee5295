"""Why a server's start failed, as types: what cannot mend itself (the server is `failed` until its config
changes, `servers/restart` or `doctor`) and what may (`restarting`, with the backoff). Contract §4 "Failure
classes".

A failure is classified from the exception's type and, for HTTP, from the status code the server answered the
handshake with (streamable HTTP turns HTTP errors into JSON-RPC stand-ins, so the code is taken from the HTTP
client itself), never from message text."""

from __future__ import annotations

import enum
import errno
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Final

import httpx2
from mcp import MCPError
from mcp.client.auth.exceptions import OAuthFlowError

# 4xx answers that a retry, a sign-in or time may mend: unauthorized, forbidden, request timeout, too many
# requests.
RETRIABLE_4XX: Final = frozenset({401, 403, 408, 429})


class Mend(enum.Enum):
    """What the supervisor does after a failed start."""

    RETRY = "restarting"  # the backoff: exits, crashes, refused or reset connections, 5xx, time-outs
    FIX = "failed"  # no retry loop: the person must change something first


class Cause(enum.Enum):
    COMMAND_NOT_FOUND = "command not found"
    NOT_EXECUTABLE = "command not executable"
    CONFIG_REFUSED = "config refused"
    OAUTH_REFUSED = "OAuth refused"
    ENDPOINT_REFUSED = "endpoint refused"
    TRANSIENT = "transient"

    @property
    def mend(self) -> Mend:
        return Mend.RETRY if self is Cause.TRANSIENT else Mend.FIX


class CannotStart(RuntimeError):
    """A start that no retry can fix while the host runs; the message says what to fix."""

    cause: Cause = Cause.CONFIG_REFUSED


class CommandNotFound(CannotStart, FileNotFoundError):
    """A stdio server's command is not there (browsers start hosts with a minimal PATH)."""

    cause = Cause.COMMAND_NOT_FOUND


class NotExecutable(CannotStart, PermissionError):
    """A stdio server's command is there but cannot be run (no execute permission, or a folder)."""

    cause = Cause.NOT_EXECUTABLE


class ConfigRefused(CannotStart):
    """The config names something that cannot work (a missing folder, an unset variable)."""

    cause = Cause.CONFIG_REFUSED


def refuses_for_good(status: int) -> bool:
    """An HTTP status no retry mends: 4xx other than 401, 403, 408 and 429."""
    return 400 <= status < 500 and status not in RETRIABLE_4XX


@dataclass(frozen=True)
class Failure:
    cause: Cause
    fix: str | None = None  # what to change, for the causes the person must fix

    @property
    def mend(self) -> Mend:
        return self.cause.mend


def leaf(exc: BaseException) -> BaseException:
    """Connect failures arrive wrapped in (nested) single-member exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def classify(exc: BaseException, *, http_status: int | None = None, url: str | None = None) -> Failure:
    """The failure class of a start that raised `exc`; `http_status` is the last HTTP status the server
    answered the handshake with (HTTP transports), if any."""
    exc = leaf(exc)
    if isinstance(exc, CannotStart):
        return Failure(exc.cause)
    if isinstance(exc, PermissionError) or (isinstance(exc, OSError) and exc.errno == errno.ENOEXEC):
        return Failure(Cause.NOT_EXECUTABLE, "the command cannot be run: check `command` and its permissions")
    if isinstance(exc, OAuthFlowError):
        return Failure(
            Cause.OAUTH_REFUSED, "check the server's OAuth setup (its metadata, issuer and resource)"
        )
    if isinstance(exc, httpx2.HTTPStatusError):
        status: int | None = exc.response.status_code
    elif isinstance(exc, MCPError):  # streamable HTTP's stand-in for an HTTP error: the status says which
        status = http_status
    else:  # a connection refused or reset after a refused POST is still a connection refused or reset
        status = None
    if status is not None and refuses_for_good(status):
        where = f" {url}" if url else ""
        return Failure(
            Cause.ENDPOINT_REFUSED,
            f"the server answered HTTP {status} at{where}: check `url` in the config (the endpoint's path)",
        )
    return Failure(Cause.TRANSIENT)


class RefusalWatch(httpx2.Auth):
    """An OAuth provider, watched: an `OAuthFlowError` it raises (metadata, issuer or resource refused) is
    handed to `refused` before it goes on. Streamable HTTP swallows errors raised in its request tasks, so
    without this the handshake would only time out, and the server restart for ever."""

    def __init__(self, inner: httpx2.Auth, refused: Callable[[BaseException], None]) -> None:
        self._inner = inner
        self._refused = refused
        self.requires_request_body = inner.requires_request_body
        self.requires_response_body = inner.requires_response_body

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self._inner.async_auth_flow(request)
        try:
            outgoing = await anext(flow)
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except OAuthFlowError as exc:
            self._refused(exc)
            raise
        finally:
            await flow.aclose()
