"""OAuth for remote servers: the SDK's OAuth client, tokens kept by the host, sign-in done in the browser.

A remote server with no `Authorization` of its own in the config gets an `OAuthClientProvider`. The one of
a running connection never opens a page: it uses the stored tokens and refreshes them, and when the server
wants a new sign-in it raises SignInRequired (the connection then waits for the person). Only a sign-in
(`servers/signIn`) gets a provider that asks the browser to open the authorization page (host → browser
`oauth/authorize`); the browser catches the redirect to `https://<extension id>.chromiumapp.org/oauth`
(chrome.identity), so no local port is ever opened.

Tokens and the dynamic client registration live in `<data dir>/oauth/<server>.json` (0600 in a 0700 folder),
written whole or not at all, and bound to the server's URL: a server whose URL changed signs in again."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final, NoReturn
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.utils import union_scopes, validate_authorization_response_iss
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from pydantic import AnyUrl

from ..config.identity import EXTENSION_ID
from .oauth_tokens import Grant, TokenFile, is_private_channel
from .refusals import Challenge

log = logging.getLogger(__name__)

REDIRECT_URI: Final = f"https://{EXTENSION_ID}.chromiumapp.org/oauth"
# A person's time at the sign-in page (logging in, maybe a second factor): theirs, not the server's.
SIGN_IN_SECONDS: Final = 600.0
# Signing out does not wait long for a server that does not answer: the tokens are forgotten here already.
REVOKE_SECONDS: Final = 10.0

CLIENT_METADATA: Final = OAuthClientMetadata(
    client_name="Tabgate",
    redirect_uris=[AnyUrl(REDIRECT_URI)],
    grant_types=["authorization_code", "refresh_token"],
    response_types=["code"],
    # A public client: PKCE protects the code, and no secret would stay secret in a browser's helper.
    token_endpoint_auth_method="none",
)


# The browser side of a sign-in: the authorization URL in, the URL it redirected to out.
type Authorize = Callable[[str], Awaitable[str]]


class SignInRequired(Exception):
    """The server wants the person to sign in (no tokens, or tokens it no longer accepts)."""


class SignInFailed(Exception):
    """A sign-in did not end with tokens; the message says why in the person's terms."""


class IssuerRefused(SignInFailed):
    """RFC 9207: the authorization response names another authorization server than the one asked, or none
    where that server said it names itself (a mix-up attack, or a broken server); its code is not used."""


@dataclass(frozen=True)
class SignOut:
    """`signed_out`: there were tokens to forget; `revoked`: the authorization server took them back."""

    signed_out: bool
    revoked: bool


def configured_client(client_id: str, secret: str | None) -> OAuthClientInformationFull:
    """A client registered by hand at the authorization server: its id, and its secret when it has one (sent
    in the token request's form where the server's metadata offers that, by HTTP Basic where it offers only
    that: `secret_method_offered`)."""
    return OAuthClientInformationFull(
        client_id=client_id,
        client_secret=secret or None,
        redirect_uris=[AnyUrl(REDIRECT_URI)],
        token_endpoint_auth_method="client_secret_post" if secret else "none",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )


def secret_method_offered(
    client: OAuthClientInformationFull | None, metadata: OAuthMetadata | None
) -> OAuthClientInformationFull | None:
    """The client with a way of sending its secret that the token endpoint offers (no list in the metadata
    means HTTP Basic only, RFC 8414 §2): a client registered by hand was told no method by the server."""
    if client is None or not client.client_secret or metadata is None:
        return client
    offered = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    if client.token_endpoint_auth_method in offered:
        return client
    for method in ("client_secret_post", "client_secret_basic"):
        if method in offered:
            return client.model_copy(update={"token_endpoint_auth_method": method})
    return client


class ServerOAuth(OAuthClientProvider):
    """The SDK's provider for one server: interactive only when given `authorize` (a sign-in).

    A running connection's provider (no `authorize`) never opens a page and never registers a client: a
    refusal (401, or 403 `insufficient_scope`) goes to `on_refused`; a 403 goes back to the caller as it came,
    a 401 on through the flow's discovery (so refused metadata is found while the server starts) up to the
    registration or the page, where it stops. Only a sign-in registers: a connection's flow overlapping the
    person's sign-in would otherwise register a second client and start a new grant under the sign-in's
    tokens. A request the token got through goes to `on_accepted`. A sign-in's provider given `replay`
    answers its first request with that refusal, so the flow runs for what the server asked even when the
    probe itself would pass."""

    def __init__(
        self,
        url: str,
        store: TokenFile,
        *,
        authorize: Authorize | None = None,
        on_sign_in_required: Callable[[], None] = lambda: None,
        on_refused: Callable[[Challenge], None] | None = None,
        on_accepted: Callable[[], None] = lambda: None,
        replay: Challenge | None = None,
        client_metadata_url: str | None = None,
        scopes: Sequence[str] = (),
    ) -> None:
        super().__init__(
            server_url=url,
            client_metadata=CLIENT_METADATA.model_copy(deep=True),
            storage=store,
            redirect_handler=self._open_page,
            callback_handler=self._await_redirect,
            # A connection never registers, a client metadata document included (its Step 4 then reaches
            # the registration request, where `_auth_flow` stops).
            client_metadata_url=client_metadata_url if authorize is not None else None,
        )
        self._store = store
        self._authorize = authorize
        self._on_sign_in_required = on_sign_in_required
        self._on_refused = on_refused
        self._on_accepted = on_accepted
        self._replay = replay
        self._scopes = " ".join(scopes) or None
        self._page: str | None = None

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        replay, self._replay = self._replay, None
        if replay is None:
            # The request goes out without the SDK's lock, which its flow holds until the answer comes: a
            # request the server never answers (an initialize-era server's `server/discover` probe) would
            # hold back every later one, the handshake's fallback to `initialize` included.
            async with self.context.lock:
                self.context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
                if (refresh := await self._due_refresh()) is not None:
                    refreshed = yield refresh
                    await self._handle_refresh_response(refreshed)
                if self.context.is_token_valid():
                    self._add_auth_header(request)
            response = yield request
            replay = Challenge.of(response)
            if replay is None:
                if response.status_code < 400 and "Authorization" in request.headers:
                    self._on_accepted()
                return
            if self._authorize is None and self._on_refused is not None:
                self._on_refused(replay)
                if replay.step_up:
                    return  # the caller gets the refusal; the person's sign-in asks for more
                # A 401: the flow goes on as far as the registration or the page (neither happens), so
                # metadata a sign-in could never get past is found now.
        # The SDK's flow for the refusal, answered as its first request (a sign-in's replays what the server
        # asked even when the probe itself would pass).
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is request and replay is not None:
                    response, replay = replay.replay(request), None
                elif self._authorize is None and self._registers(outgoing, request):
                    self._sign_in_required()
                else:
                    response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _registers(self, outgoing: httpx2.Request, request: httpx2.Request) -> bool:
        """Whether the flow's next request is a dynamic client registration: without a client, the only
        POST of the flow's own (a refresh and a code exchange both need a client)."""
        return self.context.client_info is None and outgoing is not request and outgoing.method == "POST"

    async def _due_refresh(self) -> httpx2.Request | None:
        """The refresh request when the token has expired and can be refreshed (tokens loaded first)."""
        if not self._initialized:
            await self._initialize()
        if not self.context.is_token_valid() and self.context.can_refresh_token():
            return await self._refresh_token()
        return None

    async def _perform_authorization(self) -> httpx2.Request:
        # The config's scopes are asked with whatever the server named (at the first sign-in and after).
        self.context.client_metadata.scope = union_scopes(self._scopes, self.context.client_metadata.scope)
        context = self.context
        context.client_info = secret_method_offered(context.client_info, context.oauth_metadata)
        return await super()._perform_authorization()

    async def _initialize(self) -> None:
        await super()._initialize()
        # The SDK loads tokens without their expiry, so a token that expired while the host was down would be
        # sent, refused, and cost a whole new sign-in; with the expiry it is refreshed first.
        grant = self._store.read()
        self.context.token_expiry_time = grant.expires_at
        if self.context.oauth_metadata is None:  # refresh where the sign-in found the token endpoint
            self.context.oauth_metadata = grant.authorization_server

    async def _open_page(self, url: str) -> None:
        if self._authorize is None:
            self._sign_in_required()
        self._page = checked_page(url)

    def _sign_in_required(self) -> NoReturn:
        self._on_sign_in_required()
        raise SignInRequired("the server asks you to sign in")

    async def _await_redirect(self) -> AuthorizationCodeResult:
        assert self._authorize is not None and self._page is not None
        answer = code_from_redirect(await self._authorize(self._page))
        checked_issuer(answer.iss, self.context.oauth_metadata)
        return answer

    def authorization_server(self) -> OAuthMetadata | None:
        """The authorization server's metadata as this sign-in found it (None when it needed no flow)."""
        return self.context.oauth_metadata


async def revoke(grant: Grant) -> bool:
    """Ask the authorization server to revoke the grant's tokens (RFC 7009): the refresh token first, which
    ends the grant, then the access token. True when the server took back every token; False when it has no
    revocation endpoint or did not answer 200 — the tokens are already forgotten here either way."""
    tokens, client, endpoint = grant.tokens, grant.client, grant.revocation_endpoint
    if tokens is None or client is None or client.client_id is None or endpoint is None:
        return False
    # An empty secret is RFC 6749 §2.3.1's form for a client without one; the SDK's own authorization server
    # (mcp 2.3) refuses a revocation whose form lacks the field.
    owner = {"client_id": client.client_id, "client_secret": client.client_secret or ""}
    sent = [(tokens.refresh_token, "refresh_token"), (tokens.access_token, "access_token")]
    try:
        async with create_mcp_http_client(timeout=httpx2.Timeout(REVOKE_SECONDS)) as http:
            for token, hint in sent:
                if token is None:
                    continue
                answer = await http.post(endpoint, data={"token": token, "token_type_hint": hint, **owner})
                if answer.status_code != 200:
                    log.warning("revocation at %s answered HTTP %d", endpoint, answer.status_code)
                    return False
    except httpx2.HTTPError as exc:
        log.warning("revocation at %s failed: %s", endpoint, type(exc).__name__)
        return False
    return True


def checked_page(url: str) -> str:
    """The authorization page the browser may open: https, or http on this machine (a local test server)."""
    if is_private_channel(url):
        return url
    parts = urlsplit(url)
    raise SignInFailed(
        f"the server's sign-in page is not https ({parts.scheme}://{parts.netloc}); not opened"
    )


def code_from_redirect(redirect: str) -> AuthorizationCodeResult:
    """The code (and state, iss) in the URL the sign-in page redirected to; a refusal as SignInFailed."""
    if not redirect.startswith(REDIRECT_URI):
        raise SignInFailed("the sign-in page redirected somewhere other than Tabgate")
    query = {key: values[0] for key, values in parse_qs(urlsplit(redirect).query).items()}
    if "error" in query:
        detail = query.get("error_description")
        raise SignInFailed(f"the sign-in page refused: {query['error']}" + (f" ({detail})" if detail else ""))
    if not query.get("code"):
        raise SignInFailed("the sign-in page sent no authorization code")
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def checked_issuer(iss: str | None, metadata: OAuthMetadata | None) -> None:
    """The SDK's RFC 9207 check of an authorization response's `iss`, refused in the person's terms."""
    try:
        validate_authorization_response_iss(iss, metadata)
    except OAuthFlowError:
        server = str(metadata.issuer) if metadata is not None else "the authorization server Tabgate asked"
        if iss is None:
            raise IssuerRefused(
                f"the sign-in answer does not name its authorization server, which {server} says it always "
                "does (RFC 9207 `iss`): refused, its code was not used"
            ) from None
        raise IssuerRefused(
            f"the sign-in answer names authorization server {iss}, not {server} where you signed in "
            "(RFC 9207 `iss`): refused, its code was not used"
        ) from None


def uses_oauth(headers: dict[str, str]) -> bool:
    """A remote server signs in with OAuth unless the config gives it an Authorization header of its own."""
    return not any(name.lower() == "authorization" for name in headers)
