"""An OAuth-protected MCP server for the tests: `python oauth_server.py http|sse PORT`.

The SDK's MCPServer with its own server-side auth (metadata, dynamic client registration, /authorize,
/token with PKCE, /revoke) over an in-memory authorization server on 127.0.0.1. /authorize answers with an
Approve page (a person's click); with OAUTH_AUTO_APPROVE=1 it redirects at once, as a provider the person
already consented to does. Env: OAUTH_TOKEN_SECONDS — access tokens' life (default 3600);
OAUTH_NO_REVOCATION=1 — no /revoke (nor its metadata). Sign-in driven by the refusal (streamable HTTP):
OAUTH_GATE=calls — `initialize` (and notifications, GET, DELETE) pass without a token, every other request
needs one (401 naming scope `notes`); OAUTH_ADMIN=grant|never — a tool `admin` that needs scope
`notes:admin` (403 insufficient_scope asking `notes notes:admin`), which the authorization server grants, or
never does. Clients: OAUTH_CLIENT_ID (+ OAUTH_CLIENT_SECRET) — a client registered by hand;
OAUTH_CIMD=1 — the metadata says `client_id_metadata_document_supported`, and an https client_id is taken as
a client ID metadata document; both redirect to OAUTH_REDIRECT_URI. Eras (streamable HTTP): OAUTH_ERA=2026 —
a server of 2026-07-28 only: `initialize`, or any POST without an MCP-Protocol-Version header, is refused
(HTTP 400, -32020; after the token check), as the conformance suite's servers do; OAUTH_ERA=initialize — a
server of the initialize era that never answers a request it does not know (`server/discover`), as many
do. OAUTH_ISS=right|wrong|missing — the metadata says `authorization_response_iss_parameter_supported` and
the redirect names this server as `iss`, another one, or none (RFC 9207). Test-only routes: GET /admin/stats
(counts of registrations, authorizations, code and refresh exchanges, revocations, and with any of the
options above every request at /register and each POST at /mcp with its answer; the scopes and client ids
of each authorization),
POST /admin/revoke (every token dies, as when the person revokes the app at the provider)."""

from __future__ import annotations

import html
import json
import os
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

import anyio
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
ADMIN_SCOPE = "notes:admin"


class Provider:
    """Clients, codes and tokens in memory; every issued token dies with /admin/revoke."""

    def __init__(self, token_seconds: int, auto_approve: bool) -> None:
        self.token_seconds = token_seconds
        self.auto_approve = auto_approve
        self.never_grant = {ADMIN_SCOPE} if os.environ.get("OAUTH_ADMIN") == "never" else set()
        self.cimd = os.environ.get("OAUTH_CIMD") == "1"
        self.iss = os.environ.get("OAUTH_ISS", "")
        self.issuer = ""  # set once the port is known
        self.redirect_uri = os.environ.get("OAUTH_REDIRECT_URI", "")
        self.clients: dict[str, OAuthClientInformationFull] = {}
        if client_id := os.environ.get("OAUTH_CLIENT_ID"):
            secret = os.environ.get("OAUTH_CLIENT_SECRET")
            self.clients[client_id] = self._client(client_id, secret)
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
            "registerRequests": 0,  # counted in front of the app (Gate), refused ones too
        }
        self.asked: list[dict[str, str | None]] = []  # each authorization's client id and scope
        self.answers: list[dict[str, Any]] = []  # each POST at /mcp: its method, token given?, HTTP status

    def _client(self, client_id: str, secret: str | None) -> OAuthClientInformationFull:
        return OAuthClientInformationFull(
            client_id=client_id,
            client_secret=secret,
            redirect_uris=[self.redirect_uri],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_post" if secret else "none",
            scope=f"{SCOPE} {ADMIN_SCOPE}",
        )

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if self.cimd and client_id.startswith("https://") and client_id not in self.clients:
            # A real server fetches the document at the URL; this one trusts it to name Tabgate's redirect.
            return self._client(client_id, None)
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        # Any scope this server knows, whatever the client registered with: step-up may ask for more.
        self.clients[client_info.client_id] = client_info.model_copy(
            update={"scope": f"{SCOPE} {ADMIN_SCOPE}"}
        )
        self.stats["registrations"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        approval = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.asked.append({"client": client.client_id, "scope": " ".join(params.scopes or []) or None})
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
        if self.iss in ("right", "wrong"):  # RFC 9207: the authorization server names itself
            query["iss"] = self.issuer if self.iss == "right" else "https://impostor.example"
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
        granted = [scope for scope in authorization_code.scopes if scope not in self.never_grant]
        return self._issue(authorization_code.client_id, granted)

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
                enabled=True, valid_scopes=[SCOPE, ADMIN_SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=os.environ.get("OAUTH_NO_REVOCATION") != "1"),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say that the caller got through the sign-in."""
        return "signed in to notes-cloud"

    if os.environ.get("OAUTH_ADMIN"):

        @server.tool()
        def admin() -> str:
            """Something only a token with scope notes:admin may do."""
            return "admin done"

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
        return JSONResponse({**provider.stats, "asked": provider.asked, "answers": provider.answers})

    @server.custom_route("/admin/revoke", methods=["POST"])
    async def revoke(request: Request) -> Response:
        provider.revoke_all()
        return JSONResponse({"revoked": True})

    app = server.streamable_http_app() if mode == "http" else server.sse_app()
    provider.issuer = base  # as the SDK's metadata writes it
    gated = ("OAUTH_GATE", "OAUTH_ADMIN", "OAUTH_CLIENT_ID", "OAUTH_CIMD", "OAUTH_ERA", "OAUTH_ISS")
    if any(os.environ.get(name) for name in gated):
        return Gate(app, provider, base)
    return app


class Gate:
    """In front of the app: decides itself who may call what on /mcp (the SDK's own check would refuse
    `initialize` without a token), then lets the request through to the app with an internal token; adds
    `client_id_metadata_document_supported` and `authorization_response_iss_parameter_supported` to the
    authorization server's metadata."""

    def __init__(self, app: Any, provider: Provider, base: str) -> None:
        self.app, self.provider = app, provider
        self.gate_calls = os.environ.get("OAUTH_GATE") == "calls"
        self.era = os.environ.get("OAUTH_ERA", "")
        self.internal = secrets.token_urlsafe(32)
        provider.access[self.internal] = AccessToken(
            token=self.internal, client_id="internal", scopes=[SCOPE, ADMIN_SCOPE], expires_at=None
        )
        self.metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
        self.metadata_extra: dict[str, bool] = {}
        if provider.cimd:
            self.metadata_extra["client_id_metadata_document_supported"] = True
        if provider.iss:
            self.metadata_extra["authorization_response_iss_parameter_supported"] = True

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"] == "/register":  # every request, answered or refused
            self.provider.stats["registerRequests"] += 1
        if scope["path"] == "/.well-known/oauth-authorization-server" and self.metadata_extra:
            return await self.app(scope, receive, _with_metadata(send, self.metadata_extra))
        if scope["path"] != "/mcp":
            return await self.app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            method = json.loads(body).get("method", "") if body else ""
            tool = (json.loads(body).get("params") or {}).get("name") if method == "tools/call" else None
        except (ValueError, AttributeError):
            method, tool = "", None
        headers = dict(scope["headers"])
        given = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        token = await self.provider.load_access_token(given) if given else None
        if scope["method"] == "POST":
            send = _recorded(send, {"method": method, "token": token is not None}, self.provider.answers)
        open_method = method == "initialize" or method.startswith("notifications/")
        if token is None and not (self.gate_calls and (open_method or scope["method"] != "POST")):
            if not self.gate_calls:
                return await self.app(scope, _replay(body, receive), send)  # the SDK's own refusal
            return await _refuse(send, 401, f'error="invalid_token", scope="{SCOPE}"', self.metadata_url)
        if tool == "admin" and (token is None or ADMIN_SCOPE not in token.scopes):
            challenge = f'error="insufficient_scope", scope="{SCOPE} {ADMIN_SCOPE}"'
            return await _refuse(send, 403, challenge, self.metadata_url)
        unversioned = scope["method"] == "POST" and b"mcp-protocol-version" not in headers
        if self.era == "2026" and (method == "initialize" or unversioned):
            return await _missing_version(send, body)
        if self.era == "initialize" and method == "server/discover":
            await anyio.sleep_forever()  # ignored, as an initialize-only server does
        inner = [(k, v) for k, v in scope["headers"] if k != b"authorization"]
        inner.append((b"authorization", f"Bearer {self.internal}".encode()))
        return await self.app({**scope, "headers": inner}, _replay(body, receive), send)


def _recorded(send: Any, request: dict[str, Any], answers: list[dict[str, Any]]) -> Any:
    """`send`, which records `request` with the HTTP status it is answered with."""

    async def recording(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answers.append({**request, "status": message["status"]})
        await send(message)

    return recording


def _replay(body: bytes, receive: Any) -> Any:
    """The request's body once more, then what the client does next (its disconnect)."""
    sent = False

    async def again() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _refuse(send: Any, status: int, challenge: str, metadata_url: str) -> None:
    body = json.dumps({"error": challenge.split('"')[1]}).encode()
    www = f'Bearer {challenge}, resource_metadata="{metadata_url}"'
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", www.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _missing_version(send: Any, body: bytes) -> None:
    try:
        request_id = json.loads(body).get("id")
    except (ValueError, AttributeError):
        request_id = None
    error = {"code": -32020, "message": "Missing MCP-Protocol-Version header"}
    answer = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(answer)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": answer})


def _with_metadata(send: Any, extra: dict[str, bool]) -> Any:
    """The metadata response with `extra` added."""
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def patched(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        document = json.loads(b"".join(chunks))
        document.update(extra)
        body = json.dumps(document).encode()
        headers = [(k, v) for k, v in start["headers"] if k != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return patched


def main() -> None:
    import uvicorn

    mode, port = sys.argv[1], int(sys.argv[2])
    uvicorn.run(build(mode, port), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
