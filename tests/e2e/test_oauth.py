"""Signing in to an OAuth-protected remote server from the popup, end to end: real Chromium, the real host,
and a real SDK server with its own authorization server on 127.0.0.1 (`tests/host/servers/oauth_server.py`).
chrome.identity opens the server's sign-in page in a window and catches the redirect to the extension's
chromiumapp.org address; the host stores and refreshes the tokens (issue 13)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from playwright._impl._errors import TargetClosedError
from playwright.sync_api import Page, Playwright, expect

from tests.support.axe import shoot_both_schemes
from tests.support.browser import Extension, launch_with_mcp
from tests.support.http_servers import endpoint, serving

pytestmark = pytest.mark.e2e

# `cloud` asks the person to approve on its page; `brief` approves at once, its tokens live 2 s and it has no
# revocation endpoint.
SERVERS = {
    "cloud": {},
    "brief": {"OAUTH_AUTO_APPROVE": "1", "OAUTH_TOKEN_SECONDS": "2", "OAUTH_NO_REVOCATION": "1"},
}


@pytest.fixture(scope="module")
def origins() -> Iterator[dict[str, str]]:
    with (
        serving("oauth_server.py", "http", SERVERS["cloud"]) as cloud,
        serving("oauth_server.py", "http", SERVERS["brief"]) as brief,
    ):
        yield {"cloud": cloud, "brief": brief}


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, origins: dict[str, str]
) -> Iterator[Extension]:
    folder = tmp_path_factory.mktemp("oauth")
    env = {"TABGATE_LOG_DIR": str(folder / "logs"), "TABGATE_DATA_DIR": str(folder / "data")}
    config = "".join(
        f"[mcp_servers.{name}]\nurl = {json.dumps(endpoint(origin, 'http'))}\n\n"
        for name, origin in origins.items()
    )
    with launch_with_mcp(pw, folder, config, env) as ext:
        yield ext


@pytest.fixture
def popup(ext: Extension) -> Iterator[Page]:
    page = ext.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 480, "height": 600})
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    yield page
    page.close()
    assert not errors, errors


def stats(origin: str) -> dict[str, int]:
    counts: dict[str, int] = httpx2.get(f"{origin}/admin/stats").json()
    return counts


def row(page: Page, server: str) -> Any:
    return page.locator(f'#servers li[data-server="{server}"]')


def whoami(ext: Extension, server: str) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "name": f"mcp__{server}__whoami",
        "arguments": "{}",
        "call_id": f"w-{time.time()}",
    }
    answer: dict[str, Any] = ext.send({"type": "dispatch", "item": item})
    return answer


def answered_text(answer: dict[str, Any]) -> str:
    result = answer["output"]["result"]["Ok"]
    assert result["isError"] is False, answer
    text: str = result["content"][0]["text"]
    return text


def sign_in_through_the_window(ext: Extension, popup: Page, server: str) -> None:
    with ext.context.expect_page() as opened:
        row(popup, server).get_by_role("button", name=f"Sign in to {server}").click()
    window = opened.value
    window.wait_for_load_state()
    expect(window.get_by_role("heading")).to_have_text("Allow Tabgate to use notes-cloud?")
    # Chrome closes the sign-in window as soon as it redirects to Tabgate: the click may end with its page
    # closed under it (what follows checks the sign-in took).
    with contextlib.suppress(TargetClosedError):
        window.get_by_role("link", name="Approve").click()


def test_a_server_that_needs_signing_in_says_so_with_a_sign_in_button(popup: Page) -> None:
    for server in SERVERS:
        expect(row(popup, server)).to_contain_text("sign-in needed")
        expect(row(popup, server).get_by_role("button", name=f"Sign in to {server}")).to_be_visible()
        expect(row(popup, server).locator(".server-error")).to_have_count(0)  # the row says it already
    shoot_both_schemes(popup, "popup-signin-required")


def test_closing_the_sign_in_window_says_so_and_keeps_the_button(ext: Extension, popup: Page) -> None:
    expect(row(popup, "cloud")).to_contain_text("sign-in needed")
    with ext.context.expect_page() as opened:
        row(popup, "cloud").get_by_role("button", name="Sign in to cloud").click()
    expect(row(popup, "cloud")).to_contain_text("signing in")
    opened.value.close()
    why = "sign-in to 'cloud' was not completed: The user did not approve access."
    expect(row(popup, "cloud").locator(".server-error")).to_have_text(why)
    expect(row(popup, "cloud").get_by_role("button", name="Sign in to cloud")).to_be_visible()
    later = ext.context.new_page()  # a popup opened afterwards hears why from the host's status
    later.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    expect(row(later, "cloud").locator(".server-error")).to_have_text(why)
    later.close()


def test_signing_in_through_the_servers_page_makes_its_tools_work(ext: Extension, popup: Page) -> None:
    expect(row(popup, "cloud")).to_contain_text("sign-in needed")
    sign_in_through_the_window(ext, popup, "cloud")
    expect(row(popup, "cloud")).to_contain_text("ready")
    expect(row(popup, "cloud")).to_contain_text("signed in")
    expect(row(popup, "cloud").get_by_role("button", name="Sign out of cloud")).to_be_visible()
    assert answered_text(whoami(ext, "cloud")) == "signed in to notes-cloud"
    shoot_both_schemes(popup, "popup-signed-in")


def test_an_expired_token_is_refreshed_without_asking_the_person_again(
    ext: Extension, popup: Page, origins: dict[str, str]
) -> None:
    expect(row(popup, "brief")).to_contain_text("sign-in needed")
    row(popup, "brief").get_by_role("button", name="Sign in to brief").click()  # approved without a window
    expect(row(popup, "brief")).to_contain_text("signed in")
    assert answered_text(whoami(ext, "brief")) == "signed in to notes-cloud"
    time.sleep(2.5)  # the access token is dead now
    assert answered_text(whoami(ext, "brief")) == "signed in to notes-cloud"
    counts = stats(origins["brief"])
    assert counts["refreshes"] >= 1 and counts["authorizations"] == 1


def test_a_revoked_sign_in_shows_the_sign_in_button_again(
    ext: Extension, popup: Page, origins: dict[str, str]
) -> None:
    expect(row(popup, "cloud")).to_contain_text("signed in")
    httpx2.post(f"{origins['cloud']}/admin/revoke")
    answer = whoami(ext, "cloud")
    assert answer["success"] is False
    assert "needs you to sign in" in answer["output"]["result"]["Err"]  # the call says why, and what to do
    expect(row(popup, "cloud").get_by_role("button", name="Sign in to cloud")).to_be_visible()
    sign_in_through_the_window(ext, popup, "cloud")
    expect(row(popup, "cloud")).to_contain_text("signed in")
    assert answered_text(whoami(ext, "cloud")) == "signed in to notes-cloud"


def test_signing_out_takes_the_sign_in_back_and_says_when_the_server_cannot(
    popup: Page, origins: dict[str, str]
) -> None:
    expect(row(popup, "cloud")).to_contain_text("signed in")
    revoked = stats(origins["cloud"])["revocations"]
    row(popup, "cloud").get_by_role("button", name="Sign out of cloud").click()
    expect(row(popup, "cloud").get_by_role("button", name="Sign in to cloud")).to_be_visible()
    assert stats(origins["cloud"])["revocations"] == revoked + 2  # the refresh token and the access token
    expect(row(popup, "cloud").locator(".server-note")).to_have_count(0)

    expect(row(popup, "brief")).to_contain_text("signed in")
    row(popup, "brief").get_by_role("button", name="Sign out of brief").click()
    expect(row(popup, "brief").locator(".server-note")).to_contain_text(
        "remove Tabgate's access in your account"
    )
    expect(row(popup, "brief").get_by_role("button", name="Sign in to brief")).to_be_visible()
    shoot_both_schemes(popup, "popup-signed-out-not-revoked")
