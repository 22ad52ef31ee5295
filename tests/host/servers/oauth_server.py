"""An OAuth-protected MCP server for the tests: `python oauth_server.py http|sse PORT`.

The SDK's MCPServer with its own server-side auth (metadata, dynamic client registration, /authorize,
/token with PKCE, /revoke) over an in-memory authorization server on 127.0.0.1. /authorize answers with an
Approve page (a person's click); with OAUTH_AUTO_APPROVE=1 it redirects at once, as a provider the person
already consented to does. Env: OAUTH_TOKEN_SECONDS — access tokens' life (default 3600);
OAUTH_NO_REVOCATION=1 — no /revoke (nor its metadata). Test-only routes: GET /admin/stats (counts of
registrations, authorizations, code and refresh exchanges, revocations), POST /admin/revoke
(every token dies, as when the person revokes the app at the provider)."""

from __future__ import annotations

import html
import os
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

SCOPE = "notes"


class Provider:
    """Clients, codes and tokens in memory; every issued token dies with /admin/revoke."""

    def __init__(self, token_seconds: int, auto_approve: bool) -> None:
        self.token_seconds = token_seconds
        self.auto_approve = auto_approve
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.waiting: dict[str, tuple[str, AuthorizationParams]] = {}  # approval id → (client id, request)
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats = {
            "registrations": 0,
            "authorizations": 0,
            "codeExchanges": 0,
            "refreshes": 0,
            "revocations": 0,
        }

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.stats["registrations"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        approval = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.waiting[approval] = (client.client_id, params)
        if self.auto_approve:
            return self.approve(approval)
        return f"/approve?{urlencode({'request': approval})}"

    def approve(self, approval: str) -> str:
        """The redirect back to the client, with a fresh code for the request `approval` names."""
        client_id, params = self.waiting.pop(approval)
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.stats["authorizations"] += 1
        query = {"code": code, **({"state": params.state} if params.state else {})}
        return f"{params.redirect_uri}?{urlencode(query)}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.stats["codeExchanges"] += 1
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token already used")
        self.stats["refreshes"] += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.stats["revocations"] += 1
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def revoke_all(self) -> None:
        self.access.clear()
        self.refresh.clear()

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.token_seconds
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.token_seconds,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(mode: str, port: int) -> Any:
    base = f"http://127.0.0.1:{port}"
    provider = Provider(
        int(os.environ.get("OAUTH_TOKEN_SECONDS", "3600")), os.environ.get("OAUTH_AUTO_APPROVE") == "1"
    )
    server = MCPServer(
        "notes-cloud",
        version="1.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/{'mcp' if mode == 'http' else 'sse'}",  # type: ignore[arg-type]
            validate_token_resource=False,
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=os.environ.get("OAUTH_NO_REVOCATION") != "1"),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say that the caller got through the sign-in."""
        return "signed in to notes-cloud"

    @server.custom_route("/approve", methods=["GET"])
    async def approve_page(request: Request) -> Response:
        approval = request.query_params.get("request", "")
        if approval not in provider.waiting:
            return HTMLResponse("<p>Unknown or used request.</p>", status_code=400)
        target = html.escape(f"/approve/yes?{urlencode({'request': approval})}")
        return HTMLResponse(
            "<!doctype html><title>Sign in to notes-cloud</title>"
            f'<h1>Allow Tabgate to use notes-cloud?</h1><a id="approve" href="{target}">Approve</a>'
        )

    @server.custom_route("/approve/yes", methods=["GET"])
    async def approve_yes(request: Request) -> Response:
        approval = request.query_params.get("request", "")
        if approval not in provider.waiting:
            return HTMLResponse("<p>Unknown or used request.</p>", status_code=400)
        return RedirectResponse(provider.approve(approval), status_code=302)

    @server.custom_route("/admin/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(provider.stats)

    @server.custom_route("/admin/revoke", methods=["POST"])
    async def revoke(request: Request) -> Response:
        provider.revoke_all()
        return JSONResponse({"revoked": True})

    return server.streamable_http_app() if mode == "http" else server.sse_app()


def main() -> None:
    import uvicorn

    mode, port = sys.argv[1], int(sys.argv[2])
    uvicorn.run(build(mode, port), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
