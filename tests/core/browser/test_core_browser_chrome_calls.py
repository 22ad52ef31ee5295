"""What the service worker's chrome.* executors are sent: exactly the call chrome.* takes, decided in Python
(issue 26, Deliver 3: extension/worker/browser_tools.js keeps only chrome.* calls). browser_tab sends
chrome.tabs' own options; browser_storage names the keys as stored, in the tools' namespace."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.browser.storage import TOOL_STORAGE_PREFIX
from core.runtime.facade import Service
from tests.core.core_fakes import FakeBrowser, dispatch, function_call

pytestmark = pytest.mark.unit


async def call(browser: FakeBrowser, tool: str, **args: Any) -> str:
    svc = Service(emit=lambda event: None, browser=browser)
    answer: dict[str, Any] = await svc.handle(dispatch(function_call(tool, json.dumps(args))))
    assert answer["success"] is True, answer
    output: str = answer["output"]["output"]
    return output


@pytest.mark.parametrize(
    ("args", "sent"),
    [
        (
            {"action": "query", "url": "https://*.example.com/*", "currentWindow": True},
            {"action": "query", "options": {"url": "https://*.example.com/*", "currentWindow": True}},
        ),
        (
            {"action": "create", "url": "https://example.com/", "windowId": 2},
            {"action": "create", "options": {"url": "https://example.com/", "windowId": 2}},
        ),
        ({"action": "activate", "tabId": 7}, {"action": "activate", "options": {"active": True}, "tabId": 7}),
        (
            {"action": "update", "tabId": 7, "pinned": True},
            {"action": "update", "options": {"pinned": True}, "tabId": 7},
        ),
        ({"action": "close", "tabId": 7}, {"action": "close", "options": {}, "tabId": 7}),
    ],
)
async def test_browser_tab_sends_chrome_tabs_exactly_its_options(
    args: dict[str, Any], sent: dict[str, Any]
) -> None:
    tab = {"id": 7, "url": "https://example.test/", "title": "Example"}
    browser = FakeBrowser({"browser_tab": [tab] if args["action"] == "query" else tab})
    await call(browser, "browser_tab", **args)
    [(tool, wire)] = browser.tool_calls()
    # The site the tab must still show rides along for a call on a tab (core/calls/tab_scope.py).
    assert (tool, {k: v for k, v in wire.items() if k not in ("site", "siteChanged")}) == (
        "browser_tab",
        sent,
    )


def stored(key: str) -> str:
    return TOOL_STORAGE_PREFIX + key


async def test_storage_keys_are_named_in_the_tools_namespace_by_python() -> None:
    browser = FakeBrowser({"browser_storage": {stored("a"): 1}})
    assert await call(browser, "browser_storage", action="get", keys=["a", "b"]) == '{"a":1}'
    assert await call(browser, "browser_storage", action="set", items={"b": [2]}) == '{"stored":["b"]}'
    assert await call(browser, "browser_storage", action="remove", keys=["b"]) == '{"removed":["b"]}'
    assert browser.tool_calls() == [
        ("browser_storage", {"action": "get", "area": "local", "keys": [stored("a"), stored("b")]}),
        ("browser_storage", {"action": "set", "area": "local", "items": {stored("b"): [2]}}),
        ("browser_storage", {"action": "remove", "area": "local", "keys": [stored("b")]}),
    ]


async def test_listing_keys_shows_only_the_tools_own_never_tabgates_state() -> None:
    browser = FakeBrowser({"browser_storage": ["config", "history", stored("draft"), stored("tool:x")]})
    output = await call(browser, "browser_storage", action="keys", area="session")
    assert json.loads(output) == {"keys": ["draft", "tool:x"]}
    assert browser.tool_calls() == [("browser_storage", {"action": "keys", "area": "session"})]
