"""Browser tools: validation names the bad field, valid calls reach the browser, outputs take shape."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from core.service import Service
from tests.core.core_fakes import FakeBrowser, dispatch, function_call

pytestmark = pytest.mark.unit

PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


async def call(name: str, args: dict[str, Any], browser: FakeBrowser) -> dict[str, Any]:
    svc = Service(emit=lambda event: None, browser=browser)
    answer: dict[str, Any] = await svc.handle(dispatch(function_call(name, json.dumps(args))))
    return answer


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("browser_navigation", {"action": "navigate"}, "url is required when action is 'navigate'"),
        (
            "browser_navigation",
            {"action": "navigate", "url": "javascript:alert(1)"},
            "url must be an http(s) URL",
        ),
        (
            "browser_navigation",
            {"action": "navigate", "url": "file:///etc/passwd"},
            "url must be an http(s) URL",
        ),
        ("browser_navigation", {"action": "reload", "url": "https://a.example"}, "url is only used when"),
        ("browser_navigation", {"action": "reload", "timeoutMs": 60_000}, "timeoutMs"),
        ("browser_page", {"action": "pdf"}, "action"),
        ("browser_page", {"action": "text", "maxChars": 0}, "maxChars"),
        ("browser_dom", {"action": "click"}, "selector is required when action is 'click'"),
        ("browser_dom", {"action": "type", "selector": "#q"}, "value is required when action is 'type'"),
        ("browser_dom", {"action": "scroll"}, "scroll needs a selector or x/y"),
        ("browser_dom", {"action": "click", "selector": "#a", "bogus": 1}, "bogus"),
        ("browser_screenshot", {"format": "gif"}, "format"),
        (
            "browser_screenshot",
            {"format": "png", "quality": 50},
            "quality only applies when format is 'jpeg'",
        ),
        ("browser_storage", {"action": "get"}, "keys (non-empty) is required when action is 'get'"),
        ("browser_storage", {"action": "set", "items": {}}, "items (non-empty) is required"),
        ("browser_storage", {"action": "keys", "area": "sync"}, "area"),
    ],
)
async def test_bad_arguments_are_answered_with_the_validation_message_and_never_executed(
    tool: str, args: dict[str, Any], message: str
) -> None:
    browser = FakeBrowser()
    answer = await call(tool, args, browser)
    assert answer["success"] is False
    assert message in answer["output"]["output"]
    assert browser.calls == []


@pytest.mark.parametrize(
    ("tool", "args", "sent"),
    [
        (
            "browser_navigation",
            {"action": "navigate", "url": "http://127.0.0.1:8000/a"},
            {"action": "navigate", "url": "http://127.0.0.1:8000/a", "waitForLoad": True, "timeoutMs": 15000},
        ),
        ("browser_page", {"action": "text", "tabId": 7}, {"action": "text", "tabId": 7, "maxChars": 20000}),
        (
            "browser_dom",
            {"action": "type", "selector": "#q", "value": "hi"},
            {"action": "type", "selector": "#q", "value": "hi", "clear": False, "timeoutMs": 5000},
        ),
        (
            "browser_storage",
            {"action": "set", "items": {"k": [1, 2]}},
            {"action": "set", "area": "local", "items": {"k": [1, 2]}},
        ),
    ],
)
async def test_valid_calls_reach_the_browser_with_defaults_filled_in(
    tool: str, args: dict[str, Any], sent: dict[str, Any]
) -> None:
    browser = FakeBrowser({tool: {"ok": True}})
    answer = await call(tool, args, browser)
    assert answer["success"] is True
    assert answer["output"]["output"] == '{"ok":true}'
    assert [(t, a) for t, a, _ in browser.calls] == [(tool, sent)]


async def test_a_screenshot_comes_back_as_an_image_content_item() -> None:
    browser = FakeBrowser({"browser_screenshot": {"mimeType": "image/png", "data": PNG_1PX, "tabId": 3}})
    answer = await call("browser_screenshot", {}, browser)
    assert answer["success"] is True
    text, image = answer["output"]["output"]
    assert text == {"type": "input_text", "text": "Screenshot of tab 3 (image/png, 66 bytes)"}
    assert image == {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_1PX}"}


async def test_a_screenshot_that_is_not_an_image_is_a_failed_call() -> None:
    browser = FakeBrowser({"browser_screenshot": {"mimeType": "image/png", "data": "%%%", "tabId": 3}})
    answer = await call("browser_screenshot", {}, browser)
    assert answer["success"] is False
    assert answer["output"]["output"].startswith("browser_screenshot returned no usable image")


async def test_missing_page_permission_is_passed_on_with_how_to_grant_it() -> None:
    message = "Tabgate has no access to http://127.0.0.1:8000. Grant it: open the Tabgate popup on that page"
    answer = await call("browser_page", {"action": "title"}, FakeBrowser(error=message))
    assert answer == {
        "output": {"type": "function_call_output", "call_id": "call-1", "output": message},
        "success": False,
    }


async def test_only_reading_a_page_runs_in_parallel() -> None:
    svc = Service(emit=lambda event: None, browser=FakeBrowser())
    tools = (await svc.handle({"type": "tools"}))["tools"]
    parallel = {t["name"] for t in tools if t["source"] == "browser" and t["supportsParallel"]}
    assert parallel == {"browser_page"}


@pytest.mark.parametrize(
    "url", ["data:text/html,<b>x</b>", "file:///etc/passwd", "chrome://settings", "javascript:1"]
)
@pytest.mark.parametrize("action", ["create", "update"])
async def test_tabs_open_only_web_pages(action: str, url: str) -> None:
    browser = FakeBrowser()
    answer = await call("browser_tab", {"action": action, "tabId": 1, "url": url}, browser)
    assert answer["success"] is False
    assert "url must be an http(s) URL" in answer["output"]["output"]
    assert browser.calls == []
