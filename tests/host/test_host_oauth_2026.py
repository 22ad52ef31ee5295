"""OAuth against servers of both eras through a real host and the real OAuth-protected SDK server
(`oauth_server.py`): one that speaks only 2026-07-28 (refuses `initialize`), and one of the initialize era
that never answers the 2026 `server/discover` probe. Sign-in and step-up are never "initialize only" because a
server uses OAuth (contract §4, MCP of 2026)."""

from __future__ import annotations

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


def scopes_asked(browser: Browser) -> list[str]:
    """The scope of each authorization page the browser was asked to open."""
    return [parse_qs(urlsplit(page["url"]).query)["scope"][0] for page in browser.opened]


def test_a_server_of_2026_only_signs_in_and_steps_up(tmp_path: Path) -> None:
    env = {"OAUTH_AUTO_APPROVE": "1", "OAUTH_ERA": "2026", "OAUTH_ADMIN": "grant"}
    browser = Browser()
    with (
        serving("oauth_server.py", "http", env) as origin,
        host_with_browser(HostDirs.under(tmp_path), endpoint(origin, "http"), browser) as host,
    ):
        assert wait_status(host, status="failed")["auth"] == "required"
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"
        with pytest.raises(HostError) as refused:
            admin(host)
        assert "needs more access for scope 'notes notes:admin'" in refused.value.message
        assert wait_status(host, auth="required")["scope"] == "notes notes:admin"
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        assert admin(host) == "admin done"
        assert whoami(host) == "signed in to notes-cloud"
    assert scopes_asked(browser) == ["notes", "notes notes:admin"]


def test_an_initialize_era_server_that_ignores_the_probe_signs_in_on_auto(tmp_path: Path) -> None:
    # Its `server/discover` is never answered: the handshake falls back to `initialize` after the probe's
    # bound, and the OAuth provider must not hold every later request back behind the unanswered one.
    env = {"OAUTH_AUTO_APPROVE": "1", "OAUTH_ERA": "initialize"}
    with (
        serving("oauth_server.py", "http", env) as origin,
        host_with_browser(HostDirs.under(tmp_path), endpoint(origin, "http"), Browser()) as host,
    ):
        wait_status(host, status="failed")
        host.call("servers/signIn", {"server": SERVER}, timeout=60)
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"
        assert stats(origin)["authorizations"] == 1
