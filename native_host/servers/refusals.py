"""Sign-in driven by the server's refusal (contract §4).

A server may let `initialize` through and refuse later: a 401 at `tools/list` or `tools/call`, or a 403
`insufficient_scope` for a tool that needs more scope. The running connection never opens a page: it keeps
the refusal (`Challenge`: the status and the server's `WWW-Authenticate`) and says `auth: "required"` with
the scope asked. The person's *Sign in* then hands that refusal to the SDK's OAuth flow as the answer to its
first request (`ServerOAuth(replay=...)`), so the flow runs for exactly what the server asked, wherever it
asked it: discovery from the challenge's `resource_metadata`, the challenged scope, and on a 403 the scopes
already granted kept (the SDK's step-up union).

`SignInLedger` outlives the connections of one server (a sign-in restarts it): the last refusal, and how many
sign-ins in a row the server refused again for the same scope. After `MAX_REFUSALS` the sign-in gives up
with an error naming the scope, instead of opening page after page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import httpx2
import mcp_types as types
from mcp import MCPError
from mcp.client.auth.utils import extract_field_from_www_auth

MAX_REFUSALS: Final = 3


@dataclass(frozen=True)
class Challenge:
    """A refusal the OAuth flow can answer: a 401, or a 403 with `error="insufficient_scope"`."""

    status: int
    www_authenticate: str
    scope: str | None

    @staticmethod
    def of(response: httpx2.Response) -> Challenge | None:
        """The response's challenge; None when the response is not a refusal a sign-in can mend."""
        status = response.status_code
        if status == 403 and extract_field_from_www_auth(response, "error") != "insufficient_scope":
            return None
        if status not in (401, 403):
            return None
        scope = extract_field_from_www_auth(response, "scope")
        return Challenge(status, response.headers.get("WWW-Authenticate", ""), scope or None)

    @property
    def step_up(self) -> bool:
        """The token is good but lacks scope: the server keeps serving everything else."""
        return self.status == 403

    def replay(self, request: httpx2.Request) -> httpx2.Response:
        """The refusal again, as the answer to `request`, for the SDK's flow to act on."""
        headers = {"WWW-Authenticate": self.www_authenticate} if self.www_authenticate else {}
        return httpx2.Response(self.status, headers=headers, request=request)


class SignInLedger:
    """One server's refusals across its connections (in memory, for the host's life)."""

    def __init__(self) -> None:
        self.challenge: Challenge | None = None  # the last refusal, until a sign-in answers it
        self.refusals = 0  # sign-ins in a row that the server refused again for the same scope
        self._answered: Challenge | None = None  # the refusal the last sign-in answered
        self._unreported = False  # a refusal that no failed request has explained yet

    def refused(self, challenge: Challenge) -> None:
        answered = self._answered
        if answered is not None:
            # Refused again for the scope the sign-in was for, whether as a 401 or as a 403 asking for it.
            self.refusals = self.refusals + 1 if answered.scope == challenge.scope else 0
        self._answered = None
        self.challenge = challenge
        self._unreported = True

    def report(self) -> Challenge | None:
        """The refusal a request that just failed met, once (an unrelated error later is not blamed on it)."""
        if not self._unreported:
            return None
        self._unreported = False
        return self.challenge

    def accepted(self) -> None:
        """A request that carried the token went through: a 401 is mended (a 403 is about one tool's
        scope, so other requests going through say nothing about it)."""
        if self.challenge is not None and not self.challenge.step_up:
            self.challenge = None
            self.refusals = 0
        if self._answered is not None and not self._answered.step_up:
            self._answered = None
            self.refusals = 0

    def signed_in(self) -> None:
        self._answered = self.challenge
        self.challenge = None
        self._unreported = False

    def reset(self) -> None:
        """Signed out: the next sign-in starts afresh."""
        self.challenge = self._answered = None
        self.refusals = 0
        self._unreported = False

    def more_scope_asked(self) -> bool:
        """The server refused one request for lack of scope and waits for a sign-in that asks for it."""
        return self.challenge is not None and self.challenge.step_up

    def message(self, name: str) -> str:
        """What the status and a refused request say while the server waits for the person."""
        challenge = self.challenge
        if challenge is not None and challenge.step_up:
            scope = f" for scope '{challenge.scope}'" if challenge.scope else ""
            return (
                f"MCP server '{name}' needs more access{scope}: use Sign in beside it in the Tabgate popup, "
                "then try again"
            )
        return f"MCP server '{name}' needs you to sign in: use Sign in beside it in the Tabgate popup"

    def gave_up(self, name: str) -> str | None:
        """Why a sign-in is not tried again, or None when it may be."""
        if self.refusals < MAX_REFUSALS:
            return None
        last = self.challenge or self._answered
        scope = last.scope if last is not None else None
        asked = f"scope '{scope}'" if scope else "access"
        return (
            f"server '{name}' refused {self.refusals} sign-ins in a row: it asks for {asked}, which "
            "signing in did not grant. Ask the server's owner for that access; Sign out, then Sign in "
            "tries again"
        )


def refused_request(exc: MCPError) -> bool:
    """Whether `exc` is how the streamable HTTP transport reports a request answered with an HTTP error
    status (a refusal's body is OAuth's JSON, not JSON-RPC)."""
    return exc.code == types.INTERNAL_ERROR and exc.message == "Server returned an error response"
