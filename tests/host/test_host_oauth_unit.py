"""The OAuth pieces the host adds to the SDK's client: where tokens live and how, what a sign-in page's
redirect means, which servers sign in at all."""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import AnyUrl

from native_host.config.files import FileWriteError
from native_host.servers.oauth import (
    REDIRECT_URI,
    ServerOAuth,
    SignInFailed,
    checked_page,
    code_from_redirect,
    uses_oauth,
)
from native_host.servers.oauth_tokens import TokenFile

pytestmark = pytest.mark.unit

URL = "https://notes.example/mcp"


def token(seconds: int | None = 3600) -> OAuthToken:
    return OAuthToken(
        access_token="access-1", token_type="Bearer", expires_in=seconds, refresh_token="refresh-1"
    )


def client() -> OAuthClientInformationFull:
    return OAuthClientInformationFull(client_id="client-1", redirect_uris=[AnyUrl(REDIRECT_URI)])


def metadata(issuer: str) -> OAuthMetadata:
    return OAuthMetadata.model_validate(
        {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/oauth/authorize",
            "token_endpoint": f"{issuer}/oauth/token",
            "revocation_endpoint": f"{issuer}/oauth/revoke",
            "response_types_supported": ["code"],
        }
    )


def test_the_redirect_is_the_extensions_chromiumapp_address() -> None:
    assert REDIRECT_URI == "https://aiflcfephbehodcbbjggcmhdjpgmidmd.chromiumapp.org/oauth"


def test_a_redirect_gives_its_code_state_and_issuer() -> None:
    result = code_from_redirect(f"{REDIRECT_URI}?code=c0de&state=s1&iss=https%3A%2F%2Fauth.example")
    assert (result.code, result.state, result.iss) == ("c0de", "s1", "https://auth.example")


@pytest.mark.parametrize(
    ("redirect", "says"),
    [
        (
            f"{REDIRECT_URI}?error=access_denied&error_description=No+thanks",
            "refused: access_denied (No thanks)",
        ),
        (f"{REDIRECT_URI}?error=server_error", "refused: server_error"),
        (f"{REDIRECT_URI}?state=s1", "sent no authorization code"),
        ("https://evil.example/oauth?code=c0de", "somewhere other than Tabgate"),
    ],
)
def test_a_redirect_without_a_usable_code_says_why(redirect: str, says: str) -> None:
    with pytest.raises(SignInFailed, match=says.replace("(", r"\(").replace(")", r"\)")):
        code_from_redirect(redirect)


@pytest.mark.parametrize(
    ("headers", "signs_in"),
    [
        ({}, True),
        ({"X-Team": "a"}, True),
        ({"Authorization": "Bearer x"}, False),
        ({"authorization": "x"}, False),
    ],
)
def test_only_servers_without_their_own_authorization_sign_in(
    headers: dict[str, str], signs_in: bool
) -> None:
    assert uses_oauth(headers) is signs_in


def test_tokens_are_written_for_the_owner_only_with_their_absolute_expiry(tmp_path: Path) -> None:
    store = TokenFile(tmp_path / "oauth", "notes", URL)
    before = time.time()
    anyio.run(store.set_client_info, client())
    anyio.run(store.set_tokens, token(3600))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    grant = store.read()
    assert grant.client is not None and grant.client.client_id == "client-1"
    assert grant.tokens is not None and grant.tokens.access_token == "access-1"
    assert grant.expires_at is not None and before + 3600 <= grant.expires_at <= time.time() + 3600
    assert store.signed_in()


def test_tokens_stored_for_another_url_are_not_used(tmp_path: Path) -> None:
    anyio.run(TokenFile(tmp_path, "notes", URL).set_tokens, token())
    moved = TokenFile(tmp_path, "notes", "https://elsewhere.example/mcp")
    assert anyio.run(moved.get_tokens) is None and not moved.signed_in()


def test_an_unreadable_token_file_counts_as_no_sign_in(tmp_path: Path) -> None:
    store = TokenFile(tmp_path, "notes", URL)
    store.path.write_text("{not json")
    assert anyio.run(store.get_tokens) is None
    assert anyio.run(store.get_client_info) is None


def test_a_failed_write_leaves_the_stored_tokens_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TokenFile(tmp_path, "notes", URL)
    anyio.run(store.set_tokens, token())
    before = store.path.read_bytes()

    def disk_full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(FileWriteError, match="No space left on device"):
        anyio.run(store.set_tokens, OAuthToken(access_token="access-2", token_type="Bearer"))
    assert store.path.read_bytes() == before
    assert json.loads(before)["tokens"]["access_token"] == "access-1"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.json"]  # no temporary file left behind


def test_sign_out_drops_the_tokens_and_keeps_the_registration(tmp_path: Path) -> None:
    store = TokenFile(tmp_path, "notes", URL)
    anyio.run(store.set_client_info, client())
    anyio.run(store.set_tokens, token())
    forgotten = store.forget()
    assert forgotten is not None and forgotten.tokens == token()  # what the server is asked to revoke
    assert store.forget() is None
    assert not store.signed_in() and anyio.run(store.get_client_info) == client()
    assert "access-1" not in store.path.read_text()


def test_the_provider_knows_when_stored_tokens_expired(tmp_path: Path) -> None:
    """The SDK alone would take a token stored an hour ago as valid: it keeps no expiry across restarts."""
    store = TokenFile(tmp_path, "notes", URL)
    anyio.run(store.set_client_info, client())
    anyio.run(store.set_tokens, token(1))
    provider = ServerOAuth(URL, store)
    anyio.run(provider._initialize)
    assert provider.context.is_token_valid()
    time.sleep(1.1)
    assert not provider.context.is_token_valid() and provider.context.can_refresh_token()


def test_a_token_is_refreshed_at_the_authorization_server_the_sign_in_found_never_at_the_mcp_server(
    tmp_path: Path,
) -> None:
    """A later host (or a running connection, which ran no discovery) knows no metadata by itself: the SDK
    would send the refresh token to https://notes.example/token, the MCP server."""
    store = TokenFile(tmp_path, "notes", URL)
    anyio.run(store.set_client_info, client())
    anyio.run(store.set_tokens, token(0))
    anyio.run(store.keep_authorization_server, metadata("https://auth.example"))
    grant = store.read()
    assert grant.revocation_endpoint == "https://auth.example/oauth/revoke"
    provider = ServerOAuth(URL, store)  # as the next host builds it
    refresh = anyio.run(provider._due_refresh)
    assert refresh is not None and str(refresh.url) == "https://auth.example/oauth/token"
    assert b"refresh_token=refresh-1" in refresh.content


def test_a_running_connection_never_opens_a_page(tmp_path: Path) -> None:
    asked: list[bool] = []
    provider = ServerOAuth(
        URL, TokenFile(tmp_path, "notes", URL), on_sign_in_required=lambda: asked.append(True)
    )
    with pytest.raises(Exception, match="sign in"):
        anyio.run(provider._open_page, "https://auth.example/authorize?x=1")
    assert asked == [True]


@pytest.mark.parametrize(
    "page", ["https://auth.example/authorize?x=1", "http://127.0.0.1:8123/authorize", "http://localhost/a"]
)
def test_sign_in_pages_are_https_or_on_this_machine(page: str) -> None:
    assert checked_page(page) == page


@pytest.mark.parametrize(
    "page", ["http://auth.example/authorize", "javascript:alert(1)", "file:///etc/passwd"]
)
def test_other_sign_in_pages_are_not_opened(page: str) -> None:
    with pytest.raises(SignInFailed, match="not https"):
        checked_page(page)


def test_a_new_registration_starts_a_new_grant(tmp_path: Path) -> None:
    # SEP-2352: the protected resource named another authorization server, and the SDK registered there;
    # what the earlier client was given is not kept for it.
    store = TokenFile(tmp_path, "notes", URL)
    before = client().model_copy(update={"issuer": "https://old-auth.example"})
    after = client().model_copy(update={"client_id": "client-2", "issuer": "https://new-auth.example"})

    async def migrate() -> None:
        await store.set_client_info(before)
        await store.set_tokens(token())
        await store.keep_authorization_server(metadata("https://old-auth.example"))
        await store.set_client_info(after)

    anyio.run(migrate)
    grant = store.read()
    assert grant.client == after and grant.client.issuer == "https://new-auth.example"
    assert grant.tokens is None and grant.expires_at is None and grant.revocation_endpoint is None
    assert grant.authorization_server is None
    assert store.signed_in() is False
