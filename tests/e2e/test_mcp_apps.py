"""MCP Apps in the popup: a real host, a real server written with the SDK's `Apps()` (servers/app_server.py),
its View drawn in the extension's sandbox page beside the text result.

The View writes what it received and what it could reach into its own page; the test reads that page through
the frames, as the person would see it."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import FrameLocator, Page, Playwright, ViewportSize, expect

from tests.support.axe import assert_accessible
from tests.support.bounds import BROWSER_CALL_S
from tests.support.browser import Extension, launch_with_mcp
from tests.support.local_site import serve

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "dist" / "artifacts"
APP_SERVER = Path(__file__).resolve().parent / "servers" / "app_server.py"
POPUP_SIZE: ViewportSize = {"width": 480, "height": 760}
COUNTER = "mcp__counter__counter"


@pytest.fixture(scope="module")
def ext_app(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    command, args = json.dumps(sys.executable), json.dumps(str(APP_SERVER))
    config = f"[mcp_servers.counter]\ncommand = {command}\nargs = [{args}]\n"
    folder = tmp_path_factory.mktemp("apps")
    with launch_with_mcp(pw, folder, config, host_env, offering=frozenset({COUNTER})) as ext:
        yield ext


PROBE_HITS: list[str] = []


class Probe(BaseHTTPRequestHandler):
    """A site no View's CSP names: it counts every request that reaches it."""

    def do_GET(self) -> None:
        PROBE_HITS.append(self.path)
        body = b"<!doctype html><title>probe</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def popup(ext_app: Extension) -> Iterator[Page]:
    errors: list[str] = []
    page = ext_app.context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size(POPUP_SIZE)
    page.goto(f"chrome-extension://{ext_app.id}/ui/popup.html")
    yield page
    page.close()
    assert not errors, f"uncaught errors in the popup: {errors}"


def view_of(page: Page) -> FrameLocator:
    return page.frame_locator(".app-frame").frame_locator("iframe")


def start_counter(page: Page, start: int, probe: str = "", leave: str = "", link: str = "") -> None:
    """Runs the App's tool from the popup as a person does, until its View has been initialized."""
    page.locator(f'button.tool[data-tool="{COUNTER}"]').click()
    page.get_by_label("Raw JSON").check()
    arguments = {"start": start, "probe": probe, "leave": leave, "link": link}
    page.locator("#raw-json").fill(json.dumps(arguments))
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#result .result")).to_contain_text(f"counter at {start}")  # the text stays shown
    expect(page.locator(".app")).to_have_attribute("data-state", "ready")


def run_counter(page: Page, start: int, probe: str = "", link: str = "") -> FrameLocator:
    """The App's tool run from the popup; its View once it shows the result."""
    start_counter(page, start, probe, link=link)
    view = view_of(page)
    expect(view.locator("#result")).to_have_text(f"counter at {start}")
    return view


def test_the_view_renders_with_the_calls_input_and_result_in_the_popups_theme(popup: Page) -> None:
    for scheme in ("light", "dark"):
        popup.emulate_media(color_scheme=scheme)
        popup.reload()
        view = run_counter(popup, 7)
        expect(view.locator("#input")).to_have_text('{"start":7,"probe":"","leave":"","link":""}')
        expect(view.locator("#theme")).to_have_text(scheme)
        expect(view.locator("body")).to_have_class(scheme)
        other = "light" if scheme == "dark" else "dark"
        popup.emulate_media(color_scheme=other)  # the theme follows the popup's while the View is open
        expect(view.locator("#theme")).to_have_text(other)
        popup.emulate_media(color_scheme=scheme)
        expect(view.locator("#theme")).to_have_text(scheme)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        popup.locator(".app").scroll_into_view_if_needed()
        popup.screenshot(path=str(ARTIFACTS / f"popup-mcp-app-{scheme}.png"), full_page=True)
        assert_accessible(popup)


def test_the_views_call_back_asks_the_person_and_app_less_tools_are_refused(popup: Page) -> None:
    view = run_counter(popup, 3)
    question = popup.get_by_role("alertdialog", name="Counter App asks")

    view.locator("#bump").click()
    expect(question).to_contain_text(
        "The App of “Counter” (counter) wants to run the MCP tool mcp__counter__bump"
    )
    question.get_by_role("button", name="Deny").click()
    expect(view.locator("#called")).to_have_text("refused: the person did not allow this call")

    view.locator("#bump").click()
    question.get_by_role("button", name="Allow").click()
    expect(view.locator("#called")).to_have_text("bumped to 4")
    expect(question).to_be_hidden()

    view.locator("#secret").click()  # visibility ["model"]: not for Apps, and nobody is asked
    expect(view.locator("#called")).to_have_text("refused: the tool 'secret' is not for Apps to call")
    expect(question).to_be_hidden()


def test_the_view_reaches_no_site_its_csp_does_not_name_no_chrome_and_no_popup_dom(popup: Page) -> None:
    PROBE_HITS.clear()
    with serve(Probe) as origin:
        view = run_counter(popup, 1, probe=f"{origin}/from-the-view")
        expect(view.locator("#reach")).to_contain_text("fetch-blocked")
    assert PROBE_HITS == [], "the View reached a site its CSP does not name"
    reach = view.locator("#reach").inner_text().split()
    assert "chrome-no" in reach and "popup-dom-no" in reach and "top-dom-no" in reach, reach
    csp = popup.locator(".app-frame").get_attribute("data-csp") or ""
    assert "connect-src https://api.example.test" in csp and csp.startswith("default-src 'none'"), csp


def test_closing_the_view_sends_teardown_and_waits_for_its_answer(popup: Page) -> None:
    run_counter(popup, 2)
    popup.get_by_role("button", name="Close App").click()
    expect(popup.locator(".app")).to_have_attribute("data-teardown", "answered")
    expect(popup.locator(".app-frame")).to_have_count(0)
    expect(popup.locator(".app-status")).to_have_text("App closed.")
    expect(popup.locator("#result .result")).to_contain_text("counter at 2")


def test_a_view_that_navigates_its_own_frame_does_not_leave_its_policy(popup: Page) -> None:
    PROBE_HITS.clear()
    with serve(Probe) as origin:
        start_counter(popup, 5, leave=f"{origin}/left")
        proxy = popup.locator(".app-frame").element_handle().content_frame()
        assert proxy is not None

        def left() -> bool:  # the View's frame has gone: to the site, or to the error page of a refusal
            return any(child.url not in ("about:srcdoc", "") for child in proxy.child_frames)

        deadline = time.monotonic() + BROWSER_CALL_S  # a navigation, bounded as a browser tool waits for one
        while not left() and not PROBE_HITS:
            assert time.monotonic() < deadline, "the View's navigation never ended"
            popup.wait_for_timeout(50)
    assert PROBE_HITS == [], "the View navigated its frame to a site its CSP does not name"


def test_open_link_opens_a_tab_only_after_the_person_allows_it(popup: Page, ext_app: Extension) -> None:
    PROBE_HITS.clear()
    with serve(Probe) as origin:
        link = f"{origin}/docs"
        view = run_counter(popup, 6, link=link)
        question = popup.get_by_role("alertdialog", name="Counter App asks")
        view.locator("#docs").click()
        expect(question).to_contain_text(f"wants to open {link} in a new tab")
        question.get_by_role("button", name="Deny").click()
        expect(view.locator("#called")).to_have_text("refused: the person did not open the link")
        assert not [page for page in ext_app.context.pages if page.url == link]

        view.locator("#docs").click()
        with ext_app.context.expect_page() as opened:
            question.get_by_role("button", name="Allow").click()
        expect(view.locator("#called")).to_have_text("opened")
        opened.value.wait_for_url(link)
        opened.value.close()
    assert [hit for hit in PROBE_HITS if hit != "/favicon.ico"] == [
        "/docs"
    ]  # only the tab the person allowed
