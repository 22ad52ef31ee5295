"""browser_devtools in real Chromium: console and network answer for the page shown now and count what the
tab's earlier pages left; scope "tab" lists everything since Tabgate first acted on the tab."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Playwright

from tests.core.fenced import fenced, page_of, unwrapped
from tests.support.bounds import BROWSER_CALL_S
from tests.support.browser import Extension, grant_site_access, launch
from tests.support.local_site import FixturePages, serve

pytestmark = pytest.mark.e2e

OLDER = '; {} more from earlier pages of this tab (scope: "tab" lists them)'
_call_ids = itertools.count(1)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(FixturePages) as origin:
        yield origin


@pytest.fixture(scope="module")
def ext(pw: Playwright, site: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-devtools")
    grant_site_access(pw, profile, [site])
    with launch(pw, profile) as extension:
        extension.wait_python_ready()
        yield extension


def says(ext: Extension, name: str, **args: Any) -> str:
    item = {"type": "function_call", "name": name, "arguments": json.dumps(args),
            "call_id": f"call-{next(_call_ids)}"}  # fmt: skip
    answer = ext.dispatch(item)
    assert answer["success"] is True, answer
    output: str = answer["output"]["output"]
    return output


def visit(ext: Extension, tab_id: int, site: str, name: str) -> None:
    """Navigates the tab to logs.html?p=name and waits until that page has logged and fetched."""
    says(ext, "browser_navigation", action="navigate", tabId=tab_id, url=f"{site}/logs.html?p={name}")
    says(ext, "browser_dom", action="wait_for", tabId=tab_id, text=f"Fetched {name}", timeoutMs=10_000)


def requests(answer: str) -> list[str]:
    """`method status type url` of each listed request (ids differ from run to run)."""
    return [line.split(" ", 1)[1] for line in page_of(answer).splitlines()]


def test_console_and_network_after_two_navigations_show_the_current_page_and_count_the_older(
    ext: Extension, site: str
) -> None:
    tab_id = json.loads(unwrapped(says(ext, "browser_tab", action="create", url=f"{site}/logs.html?p=zero")))[
        "id"
    ]
    # Page zero has fetched before Tabgate attaches (its first debugger action): its request is none of the
    # debugger's (attaching first, under load, recorded it).
    deadline = time.monotonic() + BROWSER_CALL_S
    while (zero := next((page for page in ext.context.pages if "p=zero" in page.url), None)) is None:
        assert time.monotonic() < deadline, "no tab shows page zero"
        ext.page.wait_for_timeout(100)  # Playwright hears of new tabs while it waits, not while Python sleeps
    zero.get_by_text("Fetched zero").wait_for()
    says(ext, "browser_dom", action="wait_for", tabId=tab_id, text="Fetched zero")  # Tabgate attaches here
    visit(ext, tab_id, site, "one")
    visit(ext, tab_id, site, "two")

    console = says(ext, "browser_devtools", action="console", tabId=tab_id)
    here = "on this page (since its last navigation)"
    assert fenced(console).splitlines()[0] == f"Tab {tab_id}: 1 console message(s) {here}{OLDER.format(2)}:"
    assert page_of(console) == f"[log] page two loaded ({site}/logs.html?p=two:8)"
    everything = page_of(says(ext, "browser_devtools", action="console", tabId=tab_id, scope="tab"))
    # Chrome hands the debugger what the page shown when Tabgate attached had logged already (page zero).
    assert [line.split(" (")[0] for line in everything.splitlines()] == [
        "[log] page zero loaded", "[log] page one loaded", "[log] page two loaded"
    ]  # fmt: skip

    network = says(ext, "browser_devtools", action="network", tabId=tab_id)
    # This page's own document request went out while page one was still shown: it is this page's.
    assert requests(network) == [
        f"GET 200 Document {site}/logs.html?p=two", f"GET 200 Fetch {site}/api.json?p=two"
    ]  # fmt: skip
    whole = requests(says(ext, "browser_devtools", action="network", tabId=tab_id, scope="tab"))
    assert whole == [
        f"GET 200 Document {site}/logs.html?p=one",
        f"GET 200 Fetch {site}/api.json?p=one",
        f"GET 200 Document {site}/logs.html?p=two",
        f"GET 200 Fetch {site}/api.json?p=two",
    ]
    head = f"Tab {tab_id}: 2 request(s) (id method status type url) {here}{OLDER.format(2)}:"
    assert fenced(network).splitlines()[0] == head
