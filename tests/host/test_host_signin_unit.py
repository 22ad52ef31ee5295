"""The pieces of a sign-in driven by the refusal: what counts as a refusal, how refusals in a row are
counted, the OAuth config keys, a client registered by hand kept out of the token file."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import MCPError
from mcp.shared.auth import OAuthMetadata, OAuthToken
from pydantic import AnyHttpUrl

from native_host.config.loading import LoadedConfig, parse_servers
from native_host.servers.oauth import configured_client, secret_method_offered
from native_host.servers.oauth_tokens import TokenFile
from native_host.servers.refusals import MAX_REFUSALS, Challenge, SignInLedger, refused_request

pytestmark = pytest.mark.unit

URL = "https://notes.example/mcp"


def response(status: int, www: str | None = None) -> httpx2.Response:
    headers = {"WWW-Authenticate": www} if www is not None else {}
    return httpx2.Response(status, headers=headers, request=httpx2.Request("POST", URL))


def test_a_401_and_a_403_asking_for_scope_are_refusals_with_their_scope() -> None:
    unauthorized = Challenge.of(response(401, 'Bearer scope="notes", resource_metadata="https://x/m"'))
    assert unauthorized is not None and unauthorized.scope == "notes" and not unauthorized.step_up
    more = Challenge.of(response(403, 'Bearer error="insufficient_scope", scope="notes notes:admin"'))
    assert more is not None and more.scope == "notes notes:admin" and more.step_up
    assert Challenge.of(response(401)) == Challenge(401, "", None)


@pytest.mark.parametrize(
    "answer", [response(200), response(403), response(403, 'Bearer error="invalid_token"'), response(500)]
)
def test_other_answers_are_no_refusal_a_sign_in_mends(answer: httpx2.Response) -> None:
    assert Challenge.of(answer) is None


def test_a_replayed_refusal_carries_the_servers_challenge() -> None:
    www = 'Bearer error="insufficient_scope", scope="a b"'
    challenge = Challenge.of(response(403, www))
    assert challenge is not None
    again = challenge.replay(httpx2.Request("POST", URL))
    assert again.status_code == 403 and again.headers["WWW-Authenticate"] == www


def step_up(scope: str = "notes notes:admin") -> Challenge:
    return Challenge(403, f'Bearer error="insufficient_scope", scope="{scope}"', scope)


def test_sign_ins_refused_again_for_the_same_scope_are_counted_until_the_limit() -> None:
    ledger = SignInLedger()
    ledger.refused(step_up())
    ledger.refused(step_up())  # refused again before any sign-in: not a sign-in refused
    assert ledger.refusals == 0 and ledger.more_scope_asked()
    for count in range(1, MAX_REFUSALS + 1):
        assert ledger.gave_up("cloud") is None
        ledger.signed_in()
        assert not ledger.more_scope_asked()
        ledger.accepted()  # other requests go through: they say nothing about this scope
        ledger.refused(step_up())
        assert ledger.refusals == count
    gave_up = ledger.gave_up("cloud")
    assert gave_up is not None and "refused 3 sign-ins in a row" in gave_up
    assert "scope 'notes notes:admin'" in gave_up
    ledger.reset()  # signing out starts afresh
    assert ledger.gave_up("cloud") is None and ledger.challenge is None


def test_a_refusal_for_another_scope_starts_the_count_again() -> None:
    ledger = SignInLedger()
    ledger.refused(step_up())
    ledger.signed_in()
    ledger.refused(step_up())
    assert ledger.refusals == 1
    ledger.signed_in()
    ledger.refused(step_up("notes notes:admin notes:owner"))
    assert ledger.refusals == 0


def test_a_403_for_the_scope_a_sign_in_was_for_refuses_that_sign_in() -> None:
    ledger = SignInLedger()
    ledger.refused(Challenge(401, 'Bearer scope="admin"', "admin"))  # no token yet
    ledger.signed_in()
    ledger.refused(step_up("admin"))  # the token came, without the scope: the sign-in did not mend it
    assert ledger.refusals == 1


def test_a_token_that_goes_through_mends_a_401() -> None:
    ledger = SignInLedger()
    expired = Challenge(401, 'Bearer scope="notes"', "notes")
    ledger.refused(expired)
    ledger.signed_in()
    ledger.refused(expired)
    assert ledger.refusals == 1
    ledger.signed_in()
    ledger.accepted()
    assert ledger.refusals == 0 and ledger.challenge is None


def test_the_message_names_the_scope_asked() -> None:
    ledger = SignInLedger()
    ledger.refused(step_up())
    assert "needs more access for scope 'notes notes:admin'" in ledger.message("cloud")
    ledger.reset()
    ledger.refused(Challenge(401, "", None))
    assert "needs you to sign in" in ledger.message("cloud")


def test_a_refusal_explains_one_failed_request() -> None:
    ledger = SignInLedger()
    assert ledger.report() is None
    ledger.refused(step_up())
    assert ledger.report() == step_up()
    assert ledger.report() is None  # a later, unrelated error is not blamed on it
    assert ledger.more_scope_asked()  # the status still asks for the scope


def test_only_the_transports_stand_in_for_an_http_error_is_a_refused_request() -> None:
    assert refused_request(MCPError(types.INTERNAL_ERROR, "Server returned an error response"))
    assert not refused_request(MCPError(types.INTERNAL_ERROR, "boom"))
    assert not refused_request(MCPError(types.CONNECTION_CLOSED, "Connection closed"))


def problems(table: dict[str, object]) -> list[str]:
    loaded = LoadedConfig(Path("config.toml"), exists=True)
    parse_servers(Path("config.toml"), {"cloud": {"url": URL, **table}}, loaded)
    return [str(problem) for problem in loaded.problems]


def test_the_oauth_keys_are_read() -> None:
    loaded = LoadedConfig(Path("config.toml"), exists=True)
    table = {
        "url": URL,
        "oauth_client_id": "tabgate",
        "oauth_client_secret_env_var": "CLOUD_SECRET",
        "oauth_scopes": ["notes", "notes:admin"],
        "oauth_client_metadata_url": "https://tabgate.example/oauth/client.json",
    }
    parse_servers(Path("config.toml"), {"cloud": table}, loaded)
    server = loaded.servers["cloud"]
    assert server.oauth_client_id == "tabgate" and server.oauth_client_secret_env_var == "CLOUD_SECRET"
    assert server.oauth_scopes == ("notes", "notes:admin")
    assert server.oauth_client_metadata_url == "https://tabgate.example/oauth/client.json"


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"oauth_client_id": 7}, "[mcp_servers.cloud] oauth_client_id: must be a string, not an integer"),
        ({"oauth_client_id": ""}, "[mcp_servers.cloud] oauth_client_id: String should have at least 1"),
        (
            {"oauth_client_secret_env_var": True},
            "[mcp_servers.cloud] oauth_client_secret_env_var: must be a string, not a boolean",
        ),
        ({"oauth_scopes": "notes"}, "[mcp_servers.cloud] oauth_scopes: must be a list, not a string"),
        ({"oauth_scopes": [1]}, "[mcp_servers.cloud] oauth_scopes.0: must be a string, not an integer"),
        ({"oauth_scopes": ["a b"]}, "[mcp_servers.cloud] oauth_scopes.0: each scope must be one word"),
        (
            {"oauth_client_metadata_url": "http://tabgate.example/client.json"},
            "[mcp_servers.cloud] oauth_client_metadata_url: must be an https URL with a path",
        ),
        (
            {"oauth_client_metadata_url": "https://tabgate.example/"},
            "[mcp_servers.cloud] oauth_client_metadata_url: must be an https URL with a path",
        ),
        (
            {"oauth_client_secret_env_var": "S"},
            "[mcp_servers.cloud] oauth_client_secret_env_var: a client secret needs its `oauth_client_id`",
        ),
    ],
)
def test_wrong_oauth_keys_are_named_with_server_and_key(table: dict[str, object], says: str) -> None:
    found = problems(table)
    assert any(says in problem for problem in found), found


def test_oauth_keys_belong_to_remote_servers() -> None:
    loaded = LoadedConfig(Path("config.toml"), exists=True)
    parse_servers(Path("config.toml"), {"local": {"command": "x", "oauth_scopes": ["a"]}}, loaded)
    assert [problem.key for problem in loaded.problems] == ["oauth_scopes"]


def test_a_client_registered_by_hand_is_the_registration_and_never_written(tmp_path: Path) -> None:
    client = configured_client("tabgate", "s3cret-value")
    assert client.token_endpoint_auth_method == "client_secret_post"
    assert configured_client("tabgate", None).token_endpoint_auth_method == "none"
    store = TokenFile(tmp_path, "cloud", URL, client)
    assert anyio.run(store.get_client_info) == client
    anyio.run(store.set_client_info, configured_client("other", None))  # a registration is not kept
    anyio.run(store.set_tokens, OAuthToken(access_token="access-1", token_type="Bearer", refresh_token="r"))
    assert "s3cret-value" not in store.path.read_text() and "client" not in store.path.read_text()
    forgotten = store.forget()
    assert forgotten is not None and forgotten.client == client  # revoked with the hand-made client
    assert "s3cret-value" not in store.path.read_text()


def metadata(methods: list[str] | None) -> OAuthMetadata:
    return OAuthMetadata(
        issuer=AnyHttpUrl("https://as.example"),
        authorization_endpoint=AnyHttpUrl("https://as.example/authorize"),
        token_endpoint=AnyHttpUrl("https://as.example/token"),
        token_endpoint_auth_methods_supported=methods,
    )


@pytest.mark.parametrize(
    ("offered", "sent"),
    [
        (None, "client_secret_basic"),  # no list: HTTP Basic only (RFC 8414 §2)
        (["client_secret_basic"], "client_secret_basic"),
        (["client_secret_post"], "client_secret_post"),
        (["client_secret_post", "client_secret_basic"], "client_secret_post"),
    ],
)
def test_a_hand_registered_secret_goes_the_way_the_token_endpoint_offers(
    offered: list[str] | None, sent: str
) -> None:
    client = secret_method_offered(configured_client("tabgate", "s3cret"), metadata(offered))
    assert client is not None and client.token_endpoint_auth_method == sent


def test_a_client_without_a_secret_keeps_its_method() -> None:
    client = configured_client("tabgate", None)
    assert secret_method_offered(client, metadata(["client_secret_post"])) == client
