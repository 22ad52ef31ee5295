"""OAuth for remote servers through a real host and a real OAuth-protected SDK server on 127.0.0.1
(`oauth_server.py`: dynamic registration, PKCE, refresh, revocation). The browser side answers
`oauth/authorize` as chrome.identity would: it follows the authorization page's redirects and hands back
the URL that reached `https://<extension id>.chromiumapp.org/oauth`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
import pytest
from conftest import HostDirs, running_host, toml_str
from hostproc import BrowserRefusal, FakeBrowserSide, HostError, HostProcess

from native_host.servers.oauth import REDIRECT_URI
from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host

SERVER = "cloud"


def config_for(url: str, extra: str = "") -> str:
    transport = 'transport = "sse"\n' if url.endswith("/sse") else ""
    return f"[mcp_servers.{SERVER}]\nurl = {toml_str(url)}\n{transport}startup_timeout_sec = 20\n{extra}\n"


def follow_to_redirect(url: str) -> str:
    """What chrome.identity.launchWebAuthFlow gives back: the URL the page finally redirected to."""
    with httpx2.Client() as http:
        for _ in range(10):
            if url.startswith(REDIRECT_URI):
                return url
            response = http.get(url)
            assert response.status_code in (302, 303, 307), (
                f"{url}: HTTP {response.status_code} {response.text}"
            )
            url = urljoin(url, response.headers["location"])
    raise AssertionError("the sign-in page never redirected back")


class Browser:
    """The answers of the browser side, and the authorization URLs it was asked to open."""

    def __init__(self) -> None:
        self.opened: list[dict[str, Any]] = []
        self.refuse: str | None = None
        self.hold_s = 0.0

    def answer(self, method: str, params: dict[str, Any]) -> Any:
        assert method == "oauth/authorize", method
        self.opened.append(params)
        time.sleep(self.hold_s)
        if self.refuse is not None:
            raise BrowserRefusal(-32000, self.refuse)
        return {"redirectUrl": follow_to_redirect(params["url"])}


def stats(origin: str) -> dict[str, int]:
    result: dict[str, int] = httpx2.get(f"{origin}/admin/stats").json()
    return result


def status_of(host: HostProcess) -> dict[str, Any]:
    return host.wait_ready()[SERVER]


def wait_status(host: HostProcess, **wanted: Any) -> dict[str, Any]:
    servers = host.wait_servers(lambda s: all(s[SERVER].get(k) == v for k, v in wanted.items()))
    return servers[SERVER]


def whoami(host: HostProcess) -> str:
    result = host.call("tools/call", {"server": SERVER, "tool": "whoami", "arguments": {}})
    text: str = result["content"][0]["text"]
    return text


def status_with_token(url: str, access_token: str) -> int:
    """The HTTP status the server answers a request that brings this access token."""
    headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json, text/event-stream"}
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    with httpx2.Client(timeout=10) as http:
        if url.endswith("/sse"):  # the event stream is opened with a GET
            with http.stream("GET", url, headers=headers) as answer:
                return answer.status_code
        return http.post(url, json=hello, headers=headers).status_code


@pytest.fixture(params=["http", "sse"])
def remote(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(origin, MCP endpoint) of a fresh protected server; its approval needs no click here."""
    with serving("oauth_server.py", request.param, {"OAUTH_AUTO_APPROVE": "1"}) as origin:
        yield origin, endpoint(origin, request.param)


@contextmanager
def host_with_browser(dirs: HostDirs, url: str, browser: Browser, extra: str = "") -> Iterator[HostProcess]:
    with running_host(dirs, config_for(url, extra)) as host:
        host.initialize()
        side = FakeBrowserSide(host, browser.answer)
        try:
            yield host
        finally:
            side.stop()


@pytest.fixture
def browser() -> Browser:
    return Browser()


@pytest.fixture
def host(tmp_path: Path, remote: tuple[str, str], browser: Browser) -> Iterator[HostProcess]:
    with host_with_browser(HostDirs.under(tmp_path), remote[1], browser) as host:
        yield host


def token_file(tmp_path: Path) -> Path:
    return HostDirs.under(tmp_path).data / "oauth" / f"{SERVER}.json"


def test_a_server_that_wants_a_sign_in_waits_for_it_and_says_so(host: HostProcess, browser: Browser) -> None:
    status = wait_status(host, status="failed")
    assert status["auth"] == "required"
    assert "needs you to sign in" in status["error"]
    assert "signInError" not in status  # no sign-in was tried: nothing failed
    time.sleep(2.5)  # a restart would have come after 1 s
    assert status_of(host)["status"] == "failed" and "restarts" not in status_of(host)
    with pytest.raises(HostError) as refused:
        whoami(host)
    assert refused.value.code == -32000 and "needs you to sign in" in refused.value.message
    assert browser.opened == []  # nothing opens a page but the person's Sign in


def test_sign_in_opens_the_page_in_the_browser_stores_the_tokens_and_starts_the_server(
    host: HostProcess, browser: Browser, remote: tuple[str, str], tmp_path: Path
) -> None:
    wait_status(host, status="failed")
    answer = host.call("servers/signIn", {"server": SERVER}, timeout=60)
    assert answer == {"server": SERVER, "signedIn": True, "status": "ready"}
    [opened] = browser.opened
    assert opened["server"] == SERVER
    query = parse_qs(urlsplit(opened["url"]).query)
    assert query["redirect_uri"] == [REDIRECT_URI]
    assert query["code_challenge_method"] == ["S256"] and query["state"]
    assert wait_status(host, status="ready")["auth"] == "signedIn"
    assert whoami(host) == "signed in to notes-cloud"
    assert stats(remote[0])["registrations"] == 1 and stats(remote[0])["codeExchanges"] == 1

    stored = token_file(tmp_path)
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    grant = json.loads(stored.read_text())
    assert grant["url"] == remote[1] and grant["tokens"]["access_token"] and grant["expires_at"] > time.time()
    logs = "".join(
        p.read_text(errors="replace") for p in HostDirs.under(tmp_path).logs.rglob("*") if p.is_file()
    )
    assert grant["tokens"]["access_token"] not in logs + host.stderr
    assert grant["tokens"]["refresh_token"] not in logs + host.stderr


def test_the_next_host_uses_the_stored_sign_in_without_the_browser(
    tmp_path: Path, remote: tuple[str, str], browser: Browser
) -> None:
    dirs = HostDirs.under(tmp_path)
    with running_host(dirs, config_for(remote[1])) as first:
        first.initialize()
        side = FakeBrowserSide(first, browser.answer)
        wait_status(first, status="failed")
        first.call("servers/signIn", {"server": SERVER}, timeout=60)
        side.stop()
    with running_host(dirs, config_for(remote[1])) as second:
        second.initialize()
        assert wait_status(second, status="ready")["auth"] == "signedIn"
        assert whoami(second) == "signed in to notes-cloud"
    assert len(browser.opened) == 1 and stats(remote[0])["authorizations"] == 1


def test_a_closed_sign_in_window_is_an_error_that_says_so_and_changes_nothing(
    host: HostProcess, browser: Browser, tmp_path: Path
) -> None:
    wait_status(host, status="failed")
    browser.refuse = "The user did not approve access."
    with pytest.raises(HostError) as refused:
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
    assert refused.value.code == -32000
    assert refused.value.message == f"sign-in to '{SERVER}' was not completed: {browser.refuse}"
    # The status keeps why, for a popup opened later, until the next try.
    status = wait_status(host, auth="required")
    assert status["signInError"] == refused.value.message
    grant = json.loads(token_file(tmp_path).read_text())  # the registration is kept for the next try
    assert "tokens" not in grant and grant["client"]["client_id"]
    browser.refuse = None
    host.call("servers/signIn", {"server": SERVER}, timeout=60)
    assert "signInError" not in wait_status(host, status="ready", auth="signedIn")


def test_one_sign_in_at_a_time(host: HostProcess, browser: Browser) -> None:
    wait_status(host, status="failed")
    browser.hold_s = 2
    first = host.submit("servers/signIn", {"server": SERVER})
    time.sleep(0.5)
    second = host.request("servers/signIn", {"server": SERVER})
    assert second["error"]["code"] == -32600
    assert "under way" in second["error"]["message"]
    assert first.result(60)["result"]["signedIn"] is True


def test_sign_out_forgets_the_tokens_and_the_server_waits_for_a_sign_in_again(
    host: HostProcess, remote: tuple[str, str], tmp_path: Path
) -> None:
    wait_status(host, status="failed")
    host.call("servers/signIn", {"server": SERVER}, timeout=60)
    tokens = json.loads(token_file(tmp_path).read_text())["tokens"]
    assert status_with_token(remote[1], tokens["access_token"]) == 200
    assert host.call("servers/signOut", {"server": SERVER}, timeout=60) == {
        "server": SERVER,
        "signedOut": True,
        "revoked": True,
    }
    grant = json.loads(token_file(tmp_path).read_text())
    assert "tokens" not in grant and grant["client"]["client_id"]  # the registration is kept for the next one
    assert wait_status(host, status="failed")["auth"] == "required"
    # The server took both tokens back: a copy of the access token kept elsewhere no longer opens it.
    assert stats(remote[0])["revocations"] == 2
    assert status_with_token(remote[1], tokens["access_token"]) == 401
    assert host.call("servers/signOut", {"server": SERVER}, timeout=60)["signedOut"] is False


def test_signing_out_of_a_server_that_cannot_revoke_still_forgets_the_tokens(tmp_path: Path) -> None:
    env = {"OAUTH_AUTO_APPROVE": "1", "OAUTH_NO_REVOCATION": "1"}
    with (
        serving("oauth_server.py", "http", env) as origin,
        host_with_browser(HostDirs.under(tmp_path), endpoint(origin, "http"), Browser()) as host,
    ):
        wait_status(host, status="failed")
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        assert whoami(host) == "signed in to notes-cloud"
        answer = host.call("servers/signOut", {"server": SERVER}, timeout=60)
        assert answer == {"server": SERVER, "signedOut": True, "revoked": False}
        assert "tokens" not in json.loads(token_file(tmp_path).read_text())
        assert wait_status(host, status="failed")["auth"] == "required"


def test_a_revoked_sign_in_is_noticed_by_the_next_call_and_a_new_sign_in_mends_it(
    host: HostProcess, remote: tuple[str, str]
) -> None:
    wait_status(host, status="failed")
    host.call("servers/signIn", {"server": SERVER}, timeout=60)
    assert whoami(host) == "signed in to notes-cloud"
    httpx2.post(f"{remote[0]}/admin/revoke")
    with pytest.raises(HostError):
        whoami(host)
    status = wait_status(host, status="failed")
    assert status["auth"] == "required" and "needs you to sign in" in status["error"]
    host.call("servers/signIn", {"server": SERVER}, timeout=60)
    assert whoami(host) == "signed in to notes-cloud"


def test_a_server_with_its_own_authorization_header_does_not_sign_in(tmp_path: Path) -> None:
    extra = 'http_headers = { Authorization = "Bearer static-token" }'
    with running_host(HostDirs.under(tmp_path), config_for("http://127.0.0.1:9/mcp", extra)) as host:
        host.initialize()
        assert "auth" not in host.wait_ready()[SERVER]
        with pytest.raises(HostError) as refused:
            host.call("servers/signIn", {"server": SERVER}, timeout=30)
        assert "does not sign in with OAuth" in refused.value.message


@pytest.fixture
def short_tokens() -> Iterator[tuple[str, str]]:
    """A protected server whose access tokens live 2 s."""
    with serving(
        "oauth_server.py", "http", {"OAUTH_AUTO_APPROVE": "1", "OAUTH_TOKEN_SECONDS": "2"}
    ) as origin:
        yield origin, endpoint(origin, "http")


def test_an_expired_token_is_refreshed_while_running_and_after_a_restart(
    tmp_path: Path, short_tokens: tuple[str, str], browser: Browser
) -> None:
    origin, url = short_tokens
    dirs = HostDirs.under(tmp_path)
    with running_host(dirs, config_for(url)) as host:
        host.initialize()
        side = FakeBrowserSide(host, browser.answer)
        wait_status(host, status="failed")
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        time.sleep(2.5)
        assert whoami(host) == "signed in to notes-cloud"
        side.stop()
    refreshed = stats(origin)["refreshes"]
    assert refreshed >= 1
    time.sleep(2.5)  # expired while no host ran: the next one refreshes it instead of asking for a sign-in
    with running_host(dirs, config_for(url)) as host:
        host.initialize()
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"
    assert stats(origin)["refreshes"] > refreshed
    assert stats(origin)["authorizations"] == 1 and len(browser.opened) == 1


def test_doctor_names_the_server_that_needs_a_sign_in(tmp_path: Path, short_tokens: tuple[str, str]) -> None:
    dirs = HostDirs.under(tmp_path)
    dirs.root.mkdir(parents=True, exist_ok=True)
    dirs.config.write_text(config_for(short_tokens[1]))
    env = {**os.environ, **dirs.env, "TABGATE_CONFIG": str(dirs.config), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "native_host.cli", "doctor", "--user-data-dir", str(dirs.profile)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    line = next(line for line in done.stdout.splitlines() if f"server {SERVER}" in line)
    assert "needs you to sign in" in line
    assert "Sign in" in done.stdout
