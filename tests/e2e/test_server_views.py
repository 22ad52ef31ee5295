"""An MCP server's live catalog, prompts and logs as a person meets them in the popup, end to end through the
real host and a real SDK server (`tests/host/servers/live_server.py`) (issue 13)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.support.axe import shoot_both_schemes
from tests.support.bounds import server_ready_s
from tests.support.browser import Extension, launch_with_mcp

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "tests" / "host" / "servers" / "live_server.py"


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    config = f"[mcp_servers.live]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(LIVE))}]\n"
    folder = tmp_path_factory.mktemp("server-views")
    with launch_with_mcp(pw, folder, config, host_env, offering=frozenset({"mcp__live__grow"})) as ext:
        ext.page.goto(
            f"chrome-extension://{ext.id}/build-info.json"
        )  # not a popup: only the tests' pages are
        yield ext


def call(ext: Extension, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "name": f"mcp__live__{tool}",
        "arguments": json.dumps(arguments),
        "call_id": tool,
    }
    answer: dict[str, Any] = ext.send({"type": "dispatch", "item": item})
    assert answer["output"]["result"]["Ok"]["isError"] is False, answer
    return answer


@pytest.fixture
def popup(ext: Extension) -> Iterator[Page]:
    page = ext.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 480, "height": 600})
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    expect(page.locator('button.tool[data-tool="mcp__live__grow"]')).to_be_visible()
    yield page
    page.close()
    assert not errors, errors


def test_a_tool_a_server_adds_at_run_time_appears_in_the_open_popup(ext: Extension, popup: Page) -> None:
    added = popup.locator('button.tool[data-tool="mcp__live__sprout"]')
    expect(added).to_have_count(0)
    call(ext, "grow", {"name": "sprout"})
    expect(added.locator(".tool-name")).to_have_text("Grown sprout")


def test_prompts_are_listed_and_fetched_from_the_popup(popup: Page) -> None:
    popup.get_by_role("button", name="Prompts and logs of live").click()
    expect(popup.locator("#server-title")).to_have_text("live")
    popup.locator('button[data-prompt="greet"]').click()
    form = popup.locator("form.prompt-form")
    form.get_by_role("button", name="Get prompt").click()
    expect(form.locator(".field-error").first).to_have_text("Required: enter a value")
    form.get_by_role("textbox", name="name").fill("Ada")
    form.get_by_role("button", name="Get prompt").click()
    expect(form.locator(".prompt-messages")).to_have_text("user: Hello, Ada!")
    shoot_both_schemes(popup, "popup-server-prompts")


def test_a_servers_log_messages_are_shown_and_new_ones_arrive_live(ext: Extension, popup: Page) -> None:
    call(ext, "say", {"level": "info", "text": "warming up", "count": 1})
    popup.get_by_role("button", name="Prompts and logs of live").click()
    logs = popup.locator("ol.logs")
    expect(logs).to_contain_text("warming up #0")
    call(ext, "say", {"level": "warning", "text": "disk almost full", "count": 2})
    expect(logs.locator("li.log-warning")).to_have_count(2)
    expect(logs.locator("li").last).to_contain_text("disk almost full #1")
    shoot_both_schemes(popup, "popup-server-logs")


def offered(ext: Extension) -> set[str]:
    return {t["name"] for t in ext.send({"type": "tools"})["tools"]}


def test_a_server_switched_off_in_options_leaves_and_comes_back(ext: Extension) -> None:
    page = ext.context.new_page()
    page.goto(f"chrome-extension://{ext.id}/ui/options.html")
    row = page.locator('#diag-servers li[data-server="live"]')
    switch = page.get_by_role("switch", name="Use the MCP server live")
    expect(row).to_have_attribute("data-status", "ready")
    switch.uncheck()
    expect(row).to_have_attribute("data-status", "disabled")
    deadline = time.monotonic() + server_ready_s()  # the listing follows the server's status
    while "mcp__live__grow" in offered(ext):
        assert time.monotonic() < deadline, "the switched-off server's tools are still offered"
        time.sleep(0.2)
    shoot_both_schemes(page, "options-server-off")
    page.get_by_role("switch", name="Use the MCP server live").check()
    expect(row).to_have_attribute("data-status", "ready")
    deadline = time.monotonic() + server_ready_s()
    while "mcp__live__grow" not in offered(ext):
        assert time.monotonic() < deadline, "the switched-on server's tools never came back"
        time.sleep(0.2)
    page.close()
