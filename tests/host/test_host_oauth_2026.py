"""OAuth against servers of both eras through a real host and the real OAuth-protected SDK server
(`oauth_server.py`): one that speaks only 2026-07-28 (refuses `initialize`), and one of the initialize era
that never answers the 2026 `server/discover` probe. Sign-in and step-up are never "initialize only" because a
server uses OAuth (contract §4, MCP of 2026). And the authorization response's `iss` (RFC 9207) checked where
the server says it sends one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import HostDirs
from hostproc import HostError, HostProcess
from test_host_oauth import SERVER, Browser, host_with_browser, stats, wait_status, whoami

from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host


def admin(host: HostProcess) -> str:
    result = host.call("tools/call", {"server": SERVER, "tool": "admin", "arguments": {}})
    text: str = result["content"][0]["text"]
    return text


@contextmanager
def protected(
    tmp_path: Path, env: dict[str, str], browser: Browser, extra: str = ""
) -> Iterator[tuple[str, HostProcess]]:
    """(origin, host) of a protected server with `env` (approved with no click), waiting for a sign-in;
    `extra` config lines for it."""
    with (
        serving("oauth_server.py", "http", {"OAUTH_AUTO_APPROVE": "1", **env}) as origin,
        host_with_browser(HostDirs.under(tmp_path), endpoint(origin, "http"), browser, extra) as host,
    ):
        assert wait_status(host, status="failed")["auth"] == "required"
        yield origin, host


def sign_in(host: HostProcess) -> None:
    host.call("servers/signIn", {"server": SERVER}, timeout=60)


def scopes_asked(browser: Browser) -> list[str]:
    """The scope of each authorization page the browser was asked to open."""
    return [parse_qs(urlsplit(page["url"]).query)["scope"][0] for page in browser.opened]


def test_a_server_of_2026_only_signs_in_and_steps_up(tmp_path: Path) -> None:
    browser = Browser()
    with protected(tmp_path, {"OAUTH_ERA": "2026", "OAUTH_ADMIN": "grant"}, browser) as (_, host):
        sign_in(host)
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"
        with pytest.raises(HostError) as refused:
            admin(host)
        assert "needs more access for scope 'notes notes:admin'" in refused.value.message
        assert wait_status(host, auth="required")["scope"] == "notes notes:admin"
        sign_in(host)
        assert admin(host) == "admin done"
        assert whoami(host) == "signed in to notes-cloud"
    assert scopes_asked(browser) == ["notes", "notes notes:admin"]


def signed_in_answers(origin: str) -> list[tuple[str, int]]:
    """What the server answered each POST that brought a valid token, in order: (method, HTTP status)."""
    answers = stats(origin)["answers"]
    return [(answer["method"], answer["status"]) for answer in answers if answer["token"]]


def test_a_server_of_2026_only_confirms_the_sign_in_with_discover(tmp_path: Path) -> None:
    # Its refusal of `initialize` (HTTP 400) would come whatever the token: it confirms nothing.
    with protected(tmp_path, {"OAUTH_ERA": "2026"}, Browser()) as (origin, host):
        sign_in(host)
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        answers = signed_in_answers(origin)
        assert answers[0] == ("server/discover", 200)  # the sign-in's own request
        assert all(status == 200 for _, status in answers), answers


def test_a_sign_in_the_server_does_not_accept_is_not_counted(tmp_path: Path) -> None:
    # `handshake = "legacy"` against a 2026-only server: the token is good, the only request sent is refused.
    with protected(tmp_path, {"OAUTH_ERA": "2026"}, Browser(), 'handshake = "legacy"') as (origin, host):
        with pytest.raises(HostError) as refused:
            sign_in(host)
        assert refused.value.message == (
            f"server '{SERVER}' did not accept the signed-in request (initialize: HTTP 400): check `url` and "
            "`handshake` in its config"
        )
        status = wait_status(host, signInError=refused.value.message)
        assert status["auth"] == "required" and status["status"] == "failed"
        assert signed_in_answers(origin) == [("initialize", 400)]


def test_an_initialize_era_server_that_ignores_the_probe_signs_in_on_auto(tmp_path: Path) -> None:
    # Its `server/discover` is never answered: the handshake falls back to `initialize` after the probe's
    # bound, and the OAuth provider must not hold every later request back behind the unanswered one.
    with protected(tmp_path, {"OAUTH_ERA": "initialize"}, Browser()) as (origin, host):
        sign_in(host)
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"
        assert stats(origin)["authorizations"] == 1
        assert signed_in_answers(origin)[0] == ("initialize", 200)  # after its unanswered discover


@pytest.mark.parametrize("iss", ["wrong", "missing"])
def test_a_sign_in_answer_that_does_not_name_the_server_asked_is_refused(tmp_path: Path, iss: str) -> None:
    # RFC 9207: the server's metadata says it names itself (`iss`) in every authorization response.
    with protected(tmp_path, {"OAUTH_ISS": iss}, Browser()) as (origin, host):
        with pytest.raises(HostError) as refused:
            sign_in(host)
        says = {
            "wrong": f"names authorization server https://impostor.example, not {origin} where you signed in",
            "missing": f"does not name its authorization server, which {origin} says it always does",
        }[iss]
        assert says in refused.value.message
        assert refused.value.message.endswith("(RFC 9207 `iss`): refused, its code was not used")
        assert stats(origin)["codeExchanges"] == 0
        status = wait_status(host, auth="required")
        assert status["signInError"] == refused.value.message and status["status"] == "failed"


def test_a_sign_in_answer_that_names_the_server_asked_is_accepted(tmp_path: Path) -> None:
    with protected(tmp_path, {"OAUTH_ISS": "right"}, Browser()) as (origin, host):
        sign_in(host)
        assert whoami(host) == "signed in to notes-cloud"
        assert stats(origin)["codeExchanges"] == 1
