"""Decisions the service worker used to make itself, now Python's and sent with each request as data
(issue 26, Deliver 3): how the executor compares what a tab shows with the site a call was checked for, and
how often a wait on a tab polls it."""

from __future__ import annotations

import pytest

from core.browser.actions import ACTIONS
from core.browser.navigation import TIMING
from core.calls.tab_scope import TAB_MOVED, Guard

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("site", "compared_by"),
    [
        ("https://shop.example", "origin"),
        ("http://127.0.0.1:8001", "origin"),
        ("about:blank", "url"),
        ("chrome://newtab/", "url"),
        ("file:///tmp/page.html", "url"),
    ],
)
def test_a_web_pages_site_is_compared_by_origin_and_any_other_page_by_its_whole_url(
    site: str, compared_by: str
) -> None:
    assert Guard(site, TAB_MOVED).to_wire()["siteOf"] == compared_by


@pytest.mark.parametrize("action", ["reload", "back", "forward", "wait_for_load"])
def test_every_wait_on_a_tab_polls_it_at_the_interval_python_sends(action: str) -> None:
    limits = ACTIONS["browser_navigation"][action].limits(None)
    assert limits["pollMs"] == dict(TIMING)["pollMs"] == 100
