"""A connection's sign-in: where its tokens are kept, the OAuth provider of each run, the server's refusals,
and the person's sign-in and sign-out (contract §4)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import MCPError
from mcp.shared._httpx_utils import create_mcp_http_client

from core.calls.capabilities import ServerStatus

from ..config.files import FileWriteError
from ..config.loading import ServerConfig
from ..config.redact import Scrubber
from .failures import leaf as _leaf
from .oauth import (
    SIGN_IN_SECONDS,
    Authorize,
    ServerOAuth,
    SignInFailed,
    SignOut,
    configured_client,
    revoke,
    uses_oauth,
)
from .oauth_tokens import TokenFile
from .refusals import Challenge, SignInLedger, refused_request
from .replies import Unavailable, describe
from .sign_in_request import confirm_sign_in
from .transports import Run, server_headers

log = logging.getLogger(__name__)


def sign_in_message(name: str) -> str:
    return f"MCP server '{name}' needs you to sign in: use Sign in beside it in the Tabgate popup"


def token_file(folder: Path, config: ServerConfig) -> TokenFile | None:
    """Where a server's tokens are kept, when it signs in with OAuth (a URL, no Authorization of its own)."""
    if config.url is None or config.bearer_token_env_var is not None:
        return None
    if not uses_oauth({**config.http_headers, **config.env_http_headers}):
        return None
    client = None
    if config.oauth_client_id is not None:
        variable = config.oauth_client_secret_env_var
        client = configured_client(config.oauth_client_id, os.environ.get(variable) if variable else None)
    return TokenFile(folder, config.name, config.url, client)


class ServerSignIn:
    """One connection's sign-in state; `publish` shows a change in the status, `failed` keeps why a sign-in
    failed as the connection's error."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        oauth_dir: Path | None,
        ledger: SignInLedger | None,
        scrub: Scrubber,
        startup_timeout: float,
        publish: Callable[[], None],
        failed: Callable[[str], None],
    ) -> None:
        self.config = config
        self.name = config.name
        self.scrub = scrub
        self.startup_timeout = startup_timeout
        self._publish = publish
        self._failed = failed
        self.ledger = ledger or SignInLedger()  # the server's refusals, kept across its connections
        self.tokens = token_file(oauth_dir, self.config) if oauth_dir is not None else None
        self.signed_in = self.tokens is not None and self.tokens.signed_in()
        self.needed = False  # the server refused us until the person signs in: no restarts till then
        self.signing_in = False
        self.error: str | None = None  # why the person's last sign-in failed, until the next one

    def add_status(self, status: ServerStatus) -> None:
        """The status's `auth`, `scope` and `signInError`."""
        if self.signing_in:
            status["auth"] = "signingIn"
        elif self.needed or self.ledger.more_scope_asked():
            status["auth"] = "required"
            if self.ledger.challenge is not None and self.ledger.challenge.scope:
                status["scope"] = self.ledger.challenge.scope
        elif self.signed_in:
            status["auth"] = "signedIn"
        if self.error is not None and "auth" in status and status["auth"] != "signedIn":
            status["signInError"] = self.error

    def provider(self, run: Run) -> ServerOAuth | None:
        """A run's OAuth: stored tokens, refreshed; a call for a new sign-in ends the run until it happens."""
        if self.tokens is None or self.config.url is None:
            return None

        def needs_sign_in() -> None:
            self.needed = True
            # Streamable HTTP swallows errors raised in its request tasks: end the handshake or run from here.
            if run.startup is not None:
                run.startup.cancel()
            run.lost.set()

        def refused(challenge: Challenge) -> None:
            # A 401 goes on through the flow's discovery to the page, where `needs_sign_in` ends the run.
            self.ledger.refused(challenge)
            if challenge.step_up and (self.config.transport == "sse" or run.ready_at is None):
                # The SSE transport's writer dies on a refused POST; a refused first listing leaves the server
                # nothing to offer: either way the run is over until the person signs in for more.
                needs_sign_in()
            elif challenge.step_up:  # the token still serves the rest: only the refused call fails
                log.info("server %s asks for more scope: %s", self.name, challenge.scope)
                self._publish()

        def accepted() -> None:
            # Only once the server is up: a server that lets `initialize` through and refuses the first
            # listing again for the same scope has refused the sign-in, however its handshake went.
            if run.ready_at is not None:
                self.ledger.accepted()

        return ServerOAuth(
            self.config.url,
            self.tokens,
            on_sign_in_required=needs_sign_in,
            on_refused=refused,
            on_accepted=accepted,
            client_metadata_url=self.config.oauth_client_metadata_url,
            scopes=self.config.oauth_scopes,
        )

    def refusal(self, exc: MCPError) -> Unavailable | None:
        """The error for a request the server refused until the person signs in (the transport reports
        the HTTP refusal as a bare error), or None when `exc` is something else."""
        if not refused_request(exc) or self.ledger.report() is None:
            return None
        return Unavailable(self.name, self.ledger.message(self.name))

    async def sign_in(self, authorize: Authorize) -> None:
        """Authorized requests to the server, in its era, with a provider that may open the sign-in page
        (sign_in_request.py); the tokens it gets are stored for the next run. Plain requests, not a session:
        streamable HTTP would swallow a failed sign-in inside its request task, and the person must hear why
        it failed."""
        store, url = self.tokens, self.config.url
        if store is None or url is None:
            raise SignInFailed(
                f"server '{self.name}' does not sign in with OAuth (its config sets Authorization)"
            )
        if (gave_up := self.ledger.gave_up(self.name)) is not None:
            self.error = gave_up
            self._publish()
            raise SignInFailed(gave_up)
        provider = ServerOAuth(
            url,
            store,
            authorize=authorize,
            replay=self.ledger.challenge,  # the refusal to sign in for: the probe itself may pass
            client_metadata_url=self.config.oauth_client_metadata_url,
            scopes=self.config.oauth_scopes,
        )
        headers = {"Accept": "application/json, text/event-stream", **server_headers(self.config)}
        self.signing_in = True
        self.error = None
        self._publish()
        try:
            await self._probe(provider, headers)
        except SignInFailed as exc:
            # Kept in the status until the next try: the popup that asked may have closed meanwhile.
            self.error = self.scrub(str(exc))
            self._failed(self.error)
            raise
        finally:
            self.signing_in = False
            self._publish()
        self.signed_in = True
        self.ledger.signed_in()
        if (metadata := provider.authorization_server()) is not None:  # None when tokens were still good
            try:
                await store.keep_authorization_server(metadata)
            except FileWriteError as exc:  # the tokens are stored: refresh and revoke are what may not work
                log.warning("server %s: could not keep its authorization server: %s", self.name, exc)

    async def _probe(self, provider: ServerOAuth, headers: dict[str, str]) -> None:
        try:
            with anyio.fail_after(SIGN_IN_SECONDS + self.startup_timeout):
                async with create_mcp_http_client(headers=headers, auth=provider) as http:
                    await confirm_sign_in(http, self.config)
        except SignInFailed:
            raise
        except TimeoutError:
            raise SignInFailed(
                f"sign-in to '{self.name}' was not finished within {SIGN_IN_SECONDS:g} s"
            ) from None
        except Exception as exc:
            leaf = _leaf(exc)
            if isinstance(leaf, SignInFailed):
                raise leaf from None
            raise SignInFailed(f"sign-in to '{self.name}' failed: {self.scrub(describe(exc))}") from None

    async def sign_out(self) -> SignOut:
        """Forget the server's tokens here, then ask its authorization server to revoke them."""
        self.ledger.reset()
        grant = self.tokens.forget() if self.tokens is not None else None
        if grant is None:
            return SignOut(signed_out=False, revoked=False)
        return SignOut(signed_out=True, revoked=await revoke(grant))
