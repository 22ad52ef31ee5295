"""Sign-in driven by the server's refusal, and the OAuth config keys (contract §4), through a real host and
the SDK's OAuth test server (`oauth_server.py`): a server that lets `initialize` through and refuses
`tools/list` with 401, a tool that needs more scope (403 insufficient_scope), a client registered by hand,
a client ID metadata document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import HostDirs, running_host
from hostproc import FakeBrowserSide, HostError, HostProcess
from test_host_oauth import SERVER, Browser, config_for, stats, wait_status, whoami

from native_host.servers.oauth import REDIRECT_URI
from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.host

ADMIN_SCOPES = "notes notes:admin"


@contextmanager
def setup(
    tmp_path: Path, server_env: dict[str, str], extra: str = "", host_env: dict[str, str] | None = None
) -> Iterator[tuple[HostProcess, Browser, str]]:
    """(host, browser side, server origin) for a fresh server started with `server_env`."""
    env = {"OAUTH_AUTO_APPROVE": "1", "OAUTH_REDIRECT_URI": REDIRECT_URI, **server_env}
    browser = Browser()
    with (
        serving("oauth_server.py", "http", env) as origin,
        running_host(
            HostDirs.under(tmp_path), config_for(endpoint(origin, "http"), extra), env=host_env or {}
        ) as host,
    ):
        host.initialize()
        side = FakeBrowserSide(host, browser.answer)
        try:
            yield host, browser, origin
        finally:
            side.stop()


def admin(host: HostProcess) -> str:
    result = host.call("tools/call", {"server": SERVER, "tool": "admin", "arguments": {}})
    text: str = result["content"][0]["text"]
    return text


def sign_in(host: HostProcess) -> Any:
    return host.call("servers/signIn", {"server": SERVER}, timeout=60)


def test_a_401_after_initialize_asks_for_a_sign_in_that_opens_the_page_and_mends_it(tmp_path: Path) -> None:
    with setup(tmp_path, {"OAUTH_GATE": "calls"}) as (host, browser, origin):
        status = wait_status(host, status="failed", auth="required")
        assert status["scope"] == "notes" and "needs you to sign in" in status["error"]
        assert browser.opened == []  # nothing opens a page but the person's Sign in
        # Nor does anything but the sign-in register: a connection's flow that did could overlap the person's
        # sign-in, register a second client and drop the sign-in's tokens.
        assert stats(origin)["registerRequests"] == 0
        assert sign_in(host) == {"server": SERVER, "signedIn": True, "status": "ready"}
        assert len(browser.opened) == 1 and stats(origin)["registrations"] == 1
        assert stats(origin)["asked"][0]["scope"] == "notes"
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert whoami(host) == "signed in to notes-cloud"


def test_step_up_asks_for_the_new_scope_keeps_the_old_and_the_refused_call_then_works(tmp_path: Path) -> None:
    with setup(tmp_path, {"OAUTH_GATE": "calls", "OAUTH_ADMIN": "grant"}) as (host, browser, origin):
        wait_status(host, status="failed", auth="required")
        sign_in(host)
        assert whoami(host) == "signed in to notes-cloud"
        with pytest.raises(HostError) as refused:
            admin(host)
        assert refused.value.code == -32000
        assert f"needs more access for scope '{ADMIN_SCOPES}'" in refused.value.message
        # The token still serves the rest: the server stays ready, and asks for the scope.
        status = wait_status(host, status="ready", auth="required")
        assert status["scope"] == ADMIN_SCOPES
        assert whoami(host) == "signed in to notes-cloud"

        assert sign_in(host)["status"] == "ready"
        asked = stats(origin)["asked"]
        assert [entry["scope"] for entry in asked] == ["notes", ADMIN_SCOPES]  # the old scope kept
        assert admin(host) == "admin done"
        assert whoami(host) == "signed in to notes-cloud"
        assert wait_status(host, status="ready")["auth"] == "signedIn"
        assert "scope" not in wait_status(host, status="ready")
        assert stats(origin)["registrations"] == 1 and len(browser.opened) == 2


def test_three_refusals_in_a_row_give_up_naming_the_scope(tmp_path: Path) -> None:
    with setup(tmp_path, {"OAUTH_GATE": "calls", "OAUTH_ADMIN": "never"}) as (host, browser, _):
        wait_status(host, status="failed", auth="required")
        sign_in(host)
        for _ in range(4):  # the first refusal, then one after each of three sign-ins
            with pytest.raises(HostError) as refused:
                admin(host)
            assert ADMIN_SCOPES in refused.value.message
            if _ < 3:
                sign_in(host)
        with pytest.raises(HostError) as gave_up:
            sign_in(host)
        assert gave_up.value.code == -32000
        assert "refused 3 sign-ins in a row" in gave_up.value.message
        assert f"scope '{ADMIN_SCOPES}'" in gave_up.value.message
        assert len(browser.opened) == 4  # no page for the try that gave up
        assert wait_status(host, auth="required")["signInError"] == gave_up.value.message
        assert whoami(host) == "signed in to notes-cloud"  # what the token does allow still works


def test_a_client_registered_by_hand_signs_in_without_registering(tmp_path: Path) -> None:
    secret = "hand-made-secret-4821"
    server_env = {"OAUTH_CLIENT_ID": "tabgate-by-hand", "OAUTH_CLIENT_SECRET": secret}
    extra = (
        'oauth_client_id = "tabgate-by-hand"\noauth_client_secret_env_var = "CLOUD_SECRET"\n'
        'oauth_scopes = ["notes:admin"]\n'
    )
    with setup(tmp_path, server_env, extra, {"CLOUD_SECRET": secret}) as (host, _, origin):
        wait_status(host, status="failed", auth="required")
        sign_in(host)
        assert whoami(host) == "signed in to notes-cloud"
        numbers = stats(origin)
        assert numbers["registrations"] == 0 and numbers["registerRequests"] == 0
        assert numbers["codeExchanges"] == 1
        [asked] = numbers["asked"]
        assert asked["client"] == "tabgate-by-hand"
        assert set((asked["scope"] or "").split()) == {"notes", "notes:admin"}  # oauth_scopes asked too
        stored = (HostDirs.under(tmp_path).data / "oauth" / f"{SERVER}.json").read_text()
        assert secret not in stored and "client" not in json.loads(stored)
        logs = "".join(
            p.read_text(errors="replace") for p in HostDirs.under(tmp_path).logs.rglob("*") if p.is_file()
        )
        assert secret not in logs + host.stderr
        # Signing out revokes with the hand-made client's credentials.
        assert host.call("servers/signOut", {"server": SERVER}, timeout=60)["revoked"] is True


def test_a_hand_registered_client_whose_secret_variable_is_unset_says_so(tmp_path: Path) -> None:
    extra = 'oauth_client_id = "tabgate-by-hand"\noauth_client_secret_env_var = "CLOUD_SECRET_UNSET"\n'
    with setup(tmp_path, {"OAUTH_CLIENT_ID": "tabgate-by-hand"}, extra) as (host, _, _origin):
        status = wait_status(host, status="failed")
        assert "CLOUD_SECRET_UNSET" in status["error"] and "not set" in status["error"]


def test_the_client_metadata_document_url_is_the_client_id_where_the_server_supports_it(
    tmp_path: Path,
) -> None:
    url = "https://tabgate.example/oauth/client.json"
    extra = f'oauth_client_metadata_url = "{url}"\n'
    with setup(tmp_path, {"OAUTH_CIMD": "1"}, extra) as (host, _, origin):
        wait_status(host, status="failed", auth="required")
        sign_in(host)
        assert whoami(host) == "signed in to notes-cloud"
        numbers = stats(origin)
        assert numbers["registrations"] == 0 and numbers["registerRequests"] == 0
        assert [entry["client"] for entry in numbers["asked"]] == [url]


def test_without_support_for_metadata_documents_the_client_registers(tmp_path: Path) -> None:
    extra = 'oauth_client_metadata_url = "https://tabgate.example/oauth/client.json"\n'
    with setup(tmp_path, {}, extra) as (host, _, origin):
        wait_status(host, status="failed", auth="required")
        sign_in(host)
        assert whoami(host) == "signed in to notes-cloud"
        assert stats(origin)["registrations"] == 1


def test_config_check_and_doctor_name_the_server_and_key_of_a_wrong_oauth_key(tmp_path: Path) -> None:
    dirs = HostDirs.under(tmp_path)
    dirs.root.mkdir(parents=True, exist_ok=True)
    dirs.config.write_text(
        '[mcp_servers.cloud]\nurl = "https://notes.example/mcp"\noauth_client_id = 7\n'
        'oauth_scopes = "notes"\noauth_client_metadata_url = "http://tabgate.example/client.json"\n'
        '[mcp_servers.fine]\nurl = "https://notes.example/mcp"\noauth_client_id = "tabgate"\n'
        'oauth_client_secret_env_var = "CLOUD_SECRET"\noauth_scopes = ["notes"]\n'
    )
    env = {**os.environ, **dirs.env, "TABGATE_CONFIG": str(dirs.config), "HOME": str(tmp_path)}
    for command in (["config", "check"], ["doctor", "--user-data-dir", str(dirs.profile)]):
        done = subprocess.run(
            [sys.executable, "-m", "native_host.cli", *command],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        for key, says in [
            ("oauth_client_id", "must be a string, not an integer"),
            ("oauth_scopes", "must be a list, not a string"),
            ("oauth_client_metadata_url", "must be an https URL with a path"),
        ]:
            assert f"[mcp_servers.cloud] {key}: {says}" in done.stdout, done.stdout
        assert "[mcp_servers.fine]" not in done.stdout
