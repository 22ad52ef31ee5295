"""The popup as a person uses it, without MCP: status, tools, the schema form, raw JSON, results, history.

Each test opens `popup.html` in a fresh page of the extension's browser, the way the toolbar button would,
and clicks and types like a person. Screenshots of both themes land in dist/artifacts/.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Playwright, ViewportSize, expect

from tests.e2e.test_mcp import host_pids
from tests.support.axe import assert_accessible, shoot_both_schemes
from tests.support.bounds import SERVERS_UP_S
from tests.support.browser import Extension, install_host, launch
from tests.support.polling import history, wait_for

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "dist" / "artifacts"
EXTENSION_SRC = ROOT / "extension"
FRIENDLY = Path(__file__).resolve().parent / "servers" / "friendly_server.py"
POPUP_SIZE: ViewportSize = {"width": 480, "height": 600}
SHORT_POPUP: ViewportSize = {"width": 480, "height": 320}  # the form fills it: a result lands below
PLAN = [
    {"step": "Read the brief", "status": "completed"},
    {"step": "Build the popup", "status": "in_progress"},
]

type OpenPopup = Callable[[], Page]


@pytest.fixture
def open_popup(ext_without_host: Extension) -> Iterator[OpenPopup]:
    """Opens the popup as a page; fails the test if any page threw an uncaught error."""
    pages: list[Page] = []
    errors: list[str] = []

    def opener() -> Page:
        page = ext_without_host.context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_viewport_size(POPUP_SIZE)
        page.goto(f"chrome-extension://{ext_without_host.id}/ui/popup.html")
        pages.append(page)
        return page

    yield opener
    for page in pages:
        if not page.is_closed():
            page.close()
    assert not errors, f"uncaught errors in the popup: {errors}"


def open_update_plan(page: Page) -> None:
    page.locator('button.tool[data-tool="update_plan"]').click()
    expect(page.locator("#tool-title")).to_have_text("update_plan")


def field(page: Page, name: str) -> Locator:
    """A text field of the tool form by its label, as a screen reader names it ("plan * (required)")."""
    return page.locator("#tool-form").get_by_role("textbox", name=re.compile(rf"^{re.escape(name)}\b"))


def plan_editor(page: Page) -> Locator:
    return page.locator('.field[data-name="plan"]')


def plan_rows(page: Page) -> Locator:
    return plan_editor(page).locator(".list-item")


def fill_plan_form(page: Page, explanation: str, plan: list[dict[str, str]] = PLAN) -> None:
    """Fills the form as a person does: the explanation, then one item of the plan's editor per step."""
    field(page, "explanation").fill(explanation)
    for i, item in enumerate(plan):
        plan_editor(page).get_by_role("button", name="Add item").click()
        row = plan_rows(page).nth(i)
        row.get_by_role("textbox", name=re.compile(r"^step\b")).fill(item["step"])
        row.get_by_role("combobox", name=re.compile(r"^status\b")).select_option(label=item["status"])


def plan_shown(page: Page) -> list[dict[str, str]]:
    """The plan as the editor shows it."""
    rows = plan_rows(page)
    return [
        {
            "step": rows.nth(i).get_by_role("textbox", name=re.compile(r"^step\b")).input_value(),
            "status": rows.nth(i).locator('[data-name="status"] option:checked').inner_text(),
        }
        for i in range(rows.count())
    ]


def raw_arguments(page: Page) -> Any:
    return json.loads(page.locator("#raw-json").input_value())


def test_status_line_shows_python_ready_and_how_to_install_the_host(open_popup: OpenPopup) -> None:
    page = open_popup()
    expect(page.locator("#status")).to_have_text("Python ready · host not installed")
    expect(page.locator("#status-fix")).to_be_visible()
    expect(page.locator("#status-fix")).to_have_text("Install the host: tabgate-host install (see README)")
    expect(page.locator("#mcp-row")).to_be_hidden()  # the MCP switch is offered only once a host is connected
    expect(page.locator("#servers")).to_be_hidden()


def test_tools_are_grouped_by_source_and_the_filter_narrows_them(open_popup: OpenPopup) -> None:
    page = open_popup()
    builtin = page.locator('.tool-group[data-group="builtin"]')
    browser = page.locator('.tool-group[data-group="browser"]')
    expect(builtin.get_by_role("heading")).to_contain_text("Built-in")
    expect(browser.get_by_role("heading")).to_contain_text("Browser")
    expect(builtin.locator('button.tool[data-tool="update_plan"]')).to_be_visible()
    expect(browser.locator('button.tool[data-tool="browser_tab"]')).to_be_visible()
    groups = page.locator(".tool-group").evaluate_all("gs => gs.map(g => g.dataset.group)")
    assert groups[:2] == ["builtin", "browser"], groups
    all_tools = page.locator("button.tool").count()

    page.get_by_label("Filter tools").fill("plan")
    expect(page.locator('button.tool[data-tool="update_plan"]')).to_be_visible()
    expect(page.locator('button.tool[data-tool="browser_tab"]')).to_be_hidden()
    expect(browser).to_be_hidden()
    assert page.locator("button.tool:visible").count() < all_tools

    page.get_by_label("Filter tools").fill("no tool is called this")
    expect(page.locator("button.tool:visible")).to_have_count(0)
    expect(page.locator("#tools-note")).to_have_text("No tools match the filter.")

    page.get_by_label("Filter tools").fill("")
    expect(page.locator("button.tool:visible")).to_have_count(all_tools)


def test_the_update_plan_form_runs_and_shows_the_result(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    page = open_popup()
    # Keyboard only: type in the filter, Enter opens the tool, Enter in a text field runs it.
    page.get_by_label("Filter tools").fill("update_plan")
    page.get_by_label("Filter tools").press("Enter")
    expect(page.locator("#tool-title")).to_have_text("update_plan")

    plan_field = page.locator('.field[data-name="plan"]')
    expect(plan_field.locator(".req")).to_be_visible()  # required is marked
    expect(plan_field.locator(".help").first).to_have_text(
        "The list of steps"
    )  # the description is help text
    expect(page.locator('.field[data-name="explanation"] .req')).to_have_count(0)

    explanation = f"form run {uuid.uuid4().hex[:8]}"
    fill_plan_form(page, explanation)
    field(page, "explanation").press("Enter")

    result = page.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "ok")
    expect(result).to_contain_text("Plan updated")
    expect(result.locator(".badge")).to_have_text("Done")
    # The plan the call set is shown, and the service worker recorded exactly these arguments.
    expect(page.locator("#plan .plan-step")).to_have_count(2)
    entry = next(e for e in history(ext_without_host) if explanation in e["item"]["arguments"])
    assert json.loads(entry["item"]["arguments"]) == {"explanation": explanation, "plan": PLAN}
    assert entry["status"] == "done"


def test_a_failed_call_is_shown_as_an_error(open_popup: OpenPopup) -> None:
    page = open_popup()
    open_update_plan(page)
    page.get_by_label("Raw JSON").check()  # the form offers only valid statuses; raw JSON can send any
    page.get_by_label("Arguments (JSON)").fill(
        json.dumps({"plan": [{"step": "x", "status": "not a status"}]})
    )
    page.get_by_role("button", name="Run", exact=True).click()
    result = page.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "error")
    expect(result.locator(".badge")).to_have_text("Failed")


def test_raw_json_round_trips_with_the_form(open_popup: OpenPopup) -> None:
    page = open_popup()
    open_update_plan(page)
    fill_plan_form(page, "from the form")

    page.get_by_label("Raw JSON").check()
    expect(page.locator("#raw-json")).to_be_visible()
    expect(page.locator("#fields")).to_be_hidden()
    assert raw_arguments(page) == {"explanation": "from the form", "plan": PLAN}

    edited = {"explanation": "from the raw JSON", "plan": [{"step": "Only step", "status": "pending"}]}
    page.get_by_label("Arguments (JSON)").fill(json.dumps(edited))
    page.get_by_label("Raw JSON").uncheck()
    expect(page.locator("#fields")).to_be_visible()
    expect(field(page, "explanation")).to_have_value("from the raw JSON")
    assert plan_shown(page) == edited["plan"]

    page.get_by_label("Raw JSON").check()
    assert raw_arguments(page) == edited


def test_a_list_of_objects_is_edited_item_by_item_and_each_item_checked(open_popup: OpenPopup) -> None:
    page = open_popup()
    open_update_plan(page)
    fill_plan_form(page, "items", [*PLAN, {"step": "Ship it", "status": "pending"}])
    expect(plan_rows(page)).to_have_count(3)
    plan_editor(page).get_by_role("button", name="Remove plan 2").click()
    assert plan_shown(page) == [PLAN[0], {"step": "Ship it", "status": "pending"}]
    expect(plan_rows(page).nth(1).locator("legend")).to_have_text("plan 2 *")  # renumbered after the removal
    plan_editor(page).get_by_role("button", name="Add item").click()  # a third item, left empty
    page.get_by_role("button", name="Run", exact=True).click()
    empty = plan_rows(page).nth(2)
    expect(empty.locator('[data-name="step"] .field-error')).to_have_text("Required: enter a value")
    expect(empty.locator('[data-name="status"] .field-error')).to_have_text("Required: choose a value")
    expect(page.locator("#result")).to_be_empty()
    shoot_both_schemes(page, "popup-list-editor")
    plan_editor(page).get_by_role("button", name="Remove plan 3").click()
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#result .result")).to_contain_text("Plan updated")


def test_bad_raw_json_is_a_field_error_and_sends_nothing(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    page = open_popup()
    open_update_plan(page)
    page.get_by_label("Raw JSON").check()
    before = len(history(ext_without_host))

    page.get_by_label("Arguments (JSON)").fill('{"plan": [')
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#raw-error")).to_be_visible()
    expect(page.locator("#raw-error")).to_contain_text("Not valid JSON")
    expect(page.locator("#raw-json")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Arguments (JSON)").press("Control+Enter")  # the keyboard way is blocked too

    page.get_by_label("Raw JSON").click()  # cannot go back to the form with text that is not JSON
    expect(page.get_by_label("Raw JSON")).to_be_checked()

    page.wait_for_timeout(500)
    expect(page.locator("#result")).to_be_empty()
    assert len(history(ext_without_host)) == before, "a call was sent with invalid JSON"

    page.get_by_label("Arguments (JSON)").fill("[1, 2]")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#raw-error")).to_contain_text("must be a JSON object")
    assert len(history(ext_without_host)) == before


def test_history_survives_closing_the_popup(open_popup: OpenPopup, ext_without_host: Extension) -> None:
    page = open_popup()
    open_update_plan(page)
    explanation = f"history {uuid.uuid4().hex[:8]}"
    fill_plan_form(page, explanation)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#result .result")).to_contain_text("Plan updated")
    expect(page.locator("#history .history-entry").first).to_contain_text("update_plan")
    page.close()

    again = open_popup()
    first = again.locator("#history .history-entry").first
    expect(first).to_contain_text("update_plan")
    expect(first).to_have_attribute("data-status", "done")
    first.click()
    expect(again.locator("#tool-title")).to_have_text("update_plan")
    expect(again.locator("#result .result")).to_contain_text("Plan updated")
    expect(field(again, "explanation")).to_have_value(explanation)  # the call's arguments come back too


def test_a_call_that_finishes_while_the_popup_is_closed_shows_on_reopening(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    page = open_popup()
    open_update_plan(page)
    explanation = f"closed {uuid.uuid4().hex[:8]}"
    fill_plan_form(page, explanation)
    page.get_by_role("button", name="Run", exact=True).click()
    page.close()  # at once: the service worker records the call, not the popup

    again = open_popup()
    entry = again.locator("#history .history-entry").first
    expect(entry).to_have_attribute("data-status", "done")
    entry.click()
    expect(field(again, "explanation")).to_have_value(explanation)
    expect(again.locator("#result .result")).to_contain_text("Plan updated")


PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eL9GtQAAAABJRU5ErkJggg=="
MCP_ANSWER = {
    "output": {
        "type": "mcp_tool_call_output",
        "call_id": "r1",
        "result": {
            "Ok": {
                "content": [
                    {"type": "text", "text": '{"id": 3, "title": "<b>bold?</b>"}'},
                    {"type": "image", "data": PNG_1PX, "mimeType": "image/png"},
                    {"type": "image", "data": PNG_1PX, "mimeType": "image/svg+xml"},
                    {"type": "resource_link", "uri": "javascript:alert(1)", "name": "a link"},
                    {
                        "type": "resource",
                        "resource": {"uri": "file:///n.txt", "text": "<script>alert(1)</script>"},
                    },
                ],
                "structuredContent": {"id": 3},
                "isError": False,
            }
        },
    },
    "success": True,
    "outcome": "done",
}
ERROR_ANSWERS = {
    "is_error": {
        "output": {
            "type": "mcp_tool_call_output",
            "call_id": "r2",
            "result": {"Ok": {"content": [{"type": "text", "text": "no such note"}], "isError": True}},
        },
        "success": False,
        "outcome": "failed",
    },
    "err": {
        "output": {"type": "mcp_tool_call_output", "call_id": "r3", "result": {"Err": "server gone"}},
        "success": False,
        "outcome": "failed",
    },
    "failed": {
        "output": {"type": "function_call_output", "call_id": "r4", "output": "bad args"},
        "success": False,
        "outcome": "failed",
    },
    "fatal": {"fatal": "handler crashed", "outcome": "fatal"},
}


def render(page: Page, answer: dict[str, Any]) -> Locator:
    """Renders an answer with the popup's own renderer, as the result panel does."""
    page.evaluate(
        """async (answer) => {
            const { renderResult } = await import('./ui_result.js');
            document.getElementById('result').replaceChildren(renderResult({ name: 't', answer }));
        }""",
        answer,
    )
    return page.locator("#result .result")


def test_results_are_shown_as_text_json_images_and_links_never_as_html(open_popup: OpenPopup) -> None:
    page = open_popup()
    result = render(page, MCP_ANSWER)
    expect(result).to_have_attribute("data-kind", "ok")
    expect(result.locator("pre.json").first).to_have_text(
        json.dumps({"id": 3, "title": "<b>bold?</b>"}, indent=2)
    )
    images = result.locator("img")
    expect(images).to_have_count(1)  # the png; svg is not an allowed image type
    assert images.get_attribute("src") == f"data:image/png;base64,{PNG_1PX}"
    expect(result).to_contain_text("Image not shown")
    expect(result.locator("a")).to_have_count(0)  # links are text, never clickable
    expect(result).to_contain_text("javascript:alert(1)")
    expect(result).to_contain_text("<script>alert(1)</script>")
    expect(result.locator("script, b")).to_have_count(0)
    expect(result.locator("details.structured")).to_contain_text("Structured content")

    for name, answer in ERROR_ANSWERS.items():
        kind = "fatal" if name == "fatal" else "error"
        expect(render(page, answer), name).to_have_attribute("data-kind", kind)


# Items the service worker dispatches as the popup does, and what the popup then shows: (item, the outcome
# Python decides, the result's kind, its badge).
ENDINGS = {
    # codex answers a local_shell_call without any id with no success flag: it did not fail.
    "no success flag": (
        {"type": "local_shell_call", "action": {"type": "exec", "command": ["ls"]}},
        "done",
        "ok",
        "Done",
    ),
    "failed": (
        {"type": "function_call", "name": "update_plan", "arguments": '{"plan":3}', "call_id": "o-failed"},
        "failed",
        "error",
        "Failed",
    ),
    "fatal": (
        {"type": "custom_tool_call", "name": "update_plan", "input": "x", "call_id": "o-fatal"},
        "fatal",
        "fatal",
        "Fatal error",
    ),
    "rejected": (
        {"type": "function_call", "name": "update_plan", "call_id": "o-rejected"},
        "rejected",
        "error",
        "Error",
    ),
}


def ended(ext: Extension, item: dict[str, Any]) -> dict[str, Any]:
    """The history entry of `item`'s call once it ended: by its call_id, else the newest of its type."""

    def entry() -> dict[str, Any] | None:
        if "call_id" in item:
            found = next((e for e in history(ext) if e["id"] == item["call_id"]), None)
        else:
            found = next((e for e in history(ext) if e["name"] == item["type"]), None)
        return found if found is not None and found["status"] != "running" else None

    ended_entry: dict[str, Any] = wait_for(entry, f"the call {item} did not end in the history")
    return ended_entry


def test_the_popup_shows_the_outcome_python_decided_as_history_records_it(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    page = open_popup()
    for name, (item, outcome, kind, badge) in ENDINGS.items():
        answer = ext_without_host.send({"type": "dispatch", "item": item})
        assert answer["outcome"] == outcome, name
        assert ended(ext_without_host, item)["status"] == outcome, name
        result = render(page, answer)
        expect(result, name).to_have_attribute("data-kind", kind)
        expect(result.locator(".badge"), name).to_have_text(badge)
    # An agent's call the person denied, as history keeps it: the popup says what Python decided, not
    # what the answer's shape looks like.
    denied = {"error": {"code": -32000, "message": "The person denied it."}, "outcome": "denied"}
    expect(render(page, denied).locator(".badge")).to_have_text("Denied")


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def test_long_text_is_shown_a_part_at_a_time_and_downloaded_whole(open_popup: OpenPopup) -> None:
    page = open_popup()
    open_update_plan(page)  # the result panel shows in a tool's view
    text = "".join(f"line {i:06d}\n" for i in range(30_000))  # 360,000 characters
    result = render(
        page, {"output": {"type": "function_call_output", "call_id": "t", "output": text}, "success": True}
    )
    shown = result.locator("pre.text")
    assert len(shown.inner_text()) < 25_000
    more = result.get_by_role(
        "button", name=re.compile(r"^Show 200,000 more characters \(340,000 not shown\)$")
    )
    more.click()
    expect(result.get_by_role("button", name=re.compile(r"^Show 140,000 more characters"))).to_be_visible()
    result.get_by_role("button", name=re.compile(r"^Show 140,000")).click()
    expect(result.locator(".show-more")).to_have_count(0)
    assert shown.evaluate("n => n.textContent") == text
    with page.expect_download() as download:
        result.get_by_role("button", name="Download the result as t.txt").click()
    assert Path(download.value.path()).read_text() == text


def test_json_images_and_binary_resources_download_as_files(open_popup: OpenPopup) -> None:
    page = open_popup()
    open_update_plan(page)  # the result panel shows in a tool's view
    result = render(
        page,
        {
            "output": {"type": "function_call_output", "call_id": "t", "output": '{"a": [1, 2]}'},
            "success": True,
        },
    )
    with page.expect_download() as download:
        result.get_by_role("button", name="Download the result as t.json").click()
    assert json.loads(Path(download.value.path()).read_text()) == {"a": [1, 2]}

    blob = base64.b64encode(bytes(range(256))).decode()
    answer = {
        "output": {
            "type": "mcp_tool_call_output",
            "call_id": "t",
            "result": {
                "Ok": {
                    "content": [
                        {"type": "image", "data": PIXEL, "mimeType": "image/png"},
                        {
                            "type": "resource",
                            "resource": {
                                "uri": "file:///data/table.bin",
                                "blob": blob,
                                "mimeType": "application/octet-stream",
                            },
                        },
                    ],
                    "isError": False,
                }
            },
        },
        "success": True,
    }
    result = render(page, answer)
    with page.expect_download() as download:
        result.get_by_role("button", name="Download the image (image/png)").click()
    assert download.value.suggested_filename == "image.png"
    assert Path(download.value.path()).read_bytes() == base64.b64decode(PIXEL)
    with page.expect_download() as download:
        result.get_by_role("button", name="Download table.bin (application/octet-stream)").click()
    assert download.value.suggested_filename == "table.bin"
    assert Path(download.value.path()).read_bytes() == bytes(range(256))
    shoot_both_schemes(page, "popup-downloads")


def test_screenshots_in_light_and_dark(open_popup: OpenPopup) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = open_popup()
    expect(page.locator("#status")).to_contain_text("Python ready")
    open_update_plan(page)
    fill_plan_form(page, "Screenshot")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#result .result")).to_contain_text("Plan updated")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.locator("#back").click()
        expect(page.locator("#view-list")).to_be_visible()
        page.mouse.move(0, 0)
        page.screenshot(path=str(ARTIFACTS / f"popup-{scheme}.png"), full_page=True)
        page.locator("#history .history-entry").first.click()
        expect(page.locator("#result .result")).to_contain_text("Plan updated")
        page.screenshot(path=str(ARTIFACTS / f"popup-tool-{scheme}.png"), full_page=True)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (scheme == "light"), background
        assert_accessible(page)


def test_popup_and_options_never_insert_html() -> None:
    """Untrusted text goes in with textContent only; the CSP also forbids inline scripts and handlers."""
    scripts = [
        *(EXTENSION_SRC / "ui").glob("popup*.js"),
        *(EXTENSION_SRC / "ui").glob("ui_*.js"),
        EXTENSION_SRC / "ui" / "options.js",
    ]
    for path in scripts:
        text = path.read_text()
        for sink in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
        ):
            assert sink not in text, f"{path.name} uses {sink}"
    for path in (EXTENSION_SRC / "ui" / "popup.html", EXTENSION_SRC / "ui" / "options.html"):
        html = path.read_text()
        assert not re.search(r"\son[a-z]+\s*=", html), f"{path.name} has an inline event handler"
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), f"{path.name} has an inline script"
        assert not re.search(r"(src|href)=\"(https?:)?//", html), f"{path.name} loads an external resource"


def offered(ext: Extension) -> list[str]:
    return [t["name"] for t in ext.send({"type": "tools"})["tools"]]


def test_options_disable_and_re_enable_a_tool_and_explain_the_host(ext_without_host: Extension) -> None:
    page = ext_without_host.context.new_page()
    try:
        page.goto(f"chrome-extension://{ext_without_host.id}/ui/options.html")
        diagnostics = page.locator("#diagnostics")
        expect(diagnostics).to_contain_text("Install the host: tabgate-host install (see README)")
        expect(diagnostics).to_contain_text("Specified native messaging host not found.")
        expect(page.get_by_label("Offer the MCP servers' tools")).not_to_be_checked()

        box = page.get_by_role("checkbox", name="update_plan", exact=True)
        expect(box).to_be_checked()
        box.uncheck()
        expect(page.locator("#tools-saved")).to_have_text("Saved")
        assert "update_plan" not in offered(ext_without_host)
        assert ext_without_host.send({"type": "config/get"})["disabledTools"] == ["update_plan"]

        page.reload()  # a disabled tool is not offered, yet the page still lists it to re-enable
        disabled = page.locator('.tool-group[data-group="disabled"]')
        expect(disabled.get_by_role("checkbox", name="update_plan", exact=True)).not_to_be_checked()
        disabled.get_by_role("checkbox", name="update_plan", exact=True).check()
        expect(page.locator("#tools-saved")).to_have_text("Saved")
        assert "update_plan" in offered(ext_without_host)
    finally:
        ext_without_host.send({"type": "config/set", "patch": {"disabledTools": []}})
        page.close()


# ------------------------------------------------------------------ MCP tools as people see them


@pytest.fixture(scope="module")
def friendly_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = tmp_path_factory.mktemp("friendly-config") / "config.toml"
    config.write_text(
        f'[mcp_servers.friendly]\ncommand = {json.dumps(sys.executable)}\nargs = ["{FRIENDLY}"]\n'
    )
    return config


@pytest.fixture(scope="module")
def ext_friendly(
    pw: Playwright,
    tmp_path_factory: pytest.TempPathFactory,
    host_env: dict[str, str],
    friendly_config: Path,
) -> Iterator[Extension]:
    """The real host with one MCP server whose tools have titles, a deprecated and a destructive tool."""
    profile = tmp_path_factory.mktemp("profile-friendly")
    install_host(profile, friendly_config, env=host_env)
    with launch(pw, profile, env=host_env) as ext:
        ext.wait_python_ready()
        assert ext.send({"type": "config/set", "patch": {"mcpTools": True}})["mcpTools"] is True
        deadline = time.monotonic() + SERVERS_UP_S
        while not any(t["name"] == "mcp__friendly__erase" for t in ext.send({"type": "tools"})["tools"]):
            assert time.monotonic() < deadline, "the friendly server's tools were never offered"
            time.sleep(0.2)
        yield ext


@pytest.fixture
def open_friendly(ext_friendly: Extension) -> Iterator[OpenPopup]:
    pages: list[Page] = []
    errors: list[str] = []

    def opener() -> Page:
        page = ext_friendly.context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_viewport_size(POPUP_SIZE)
        page.goto(f"chrome-extension://{ext_friendly.id}/ui/popup.html")
        pages.append(page)
        return page

    yield opener
    for page in pages:
        if not page.is_closed():
            page.close()
    assert not errors, f"uncaught errors in the popup: {errors}"


def tool_button(page: Page, name: str) -> Locator:
    return page.locator(f'button.tool[data-tool="{name}"]')


def test_mcp_tools_show_their_title_server_and_marks(open_friendly: OpenPopup) -> None:
    page = open_friendly()
    now = tool_button(page, "mcp__friendly__now")
    expect(now.locator(".tool-name")).to_have_text("Current Time")
    expect(now.locator(".tool-server")).to_have_text("friendly · mcp__friendly__now")
    expect(now.locator(".mark")).to_have_count(0)

    deprecated = tool_button(page, "mcp__friendly__read_file")
    expect(deprecated.locator(".mark-deprecated")).to_have_text("deprecated")
    expect(deprecated.locator(".mark-destructive")).to_have_count(0)
    erase = tool_button(page, "mcp__friendly__erase")
    expect(erase.locator(".mark-destructive")).to_have_text("destructive")
    expect(erase.locator(".mark-deprecated")).to_have_count(0)
    # Built-in tools have no title: their name is what a person reads.
    expect(tool_button(page, "update_plan").locator(".tool-name")).to_have_text("update_plan")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        erase.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"popup-mcp-tools-{scheme}.png"))

    erase.click()
    expect(page.locator("#tool-title")).to_have_text("Erase Everything")
    expect(page.locator("#tool-marks")).to_have_text("destructive")
    expect(page.locator("#tool-origin")).to_have_text("mcp__friendly__erase · from the MCP server friendly")


def test_a_destructive_tool_runs_only_after_the_person_confirms_once(
    open_friendly: OpenPopup, ext_friendly: Extension
) -> None:
    def erase_calls() -> int:
        return sum(e["name"] == "mcp__friendly__erase" for e in history(ext_friendly))

    page = open_friendly()
    before = erase_calls()
    tool_button(page, "mcp__friendly__erase").click()
    page.get_by_role("button", name="Run", exact=True).click()
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_contain_text("“Erase Everything” may change or delete data")
    expect(page.get_by_role("button", name="Don’t run")).to_be_focused()
    page.get_by_role("button", name="Don’t run").click()
    expect(confirm).to_be_hidden()
    page.wait_for_timeout(300)
    assert erase_calls() == before, "the destructive tool ran without a yes"
    expect(page.locator("#result")).to_be_empty()

    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("button", name="Run it").click()
    expect(page.locator("#result .result")).to_have_attribute("data-kind", "ok")
    expect(page.locator("#result .result")).to_contain_text("erased")
    assert erase_calls() == before + 1
    erased = re.search(r"erased \((\d+) times\)", page.locator("#result .result").inner_text())
    assert erased, "the server's answer is shown"

    page.get_by_role("button", name="Run", exact=True).click()  # asked once: the second run goes at once
    expect(page.locator("#result .result")).to_contain_text(f"erased ({int(erased[1]) + 1} times)")
    expect(confirm).to_be_hidden()
    assert erase_calls() == before + 2
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        again = open_friendly()  # the yes lasts while a popup is open: a new popup asks again
        again.emulate_media(color_scheme=scheme)
        tool_button(again, "mcp__friendly__erase").click()
        again.get_by_role("button", name="Run", exact=True).click()
        expect(again.get_by_role("alertdialog")).to_be_visible()
        again.screenshot(path=str(ARTIFACTS / f"popup-confirm-{scheme}.png"), full_page=True)
        again.keyboard.press("Escape")  # Escape says no and keeps the tool open
        expect(again.get_by_role("alertdialog")).to_be_hidden()
        expect(again.locator("#tool-title")).to_have_text("Erase Everything")
    assert erase_calls() == before + 2


def test_the_filter_ranks_names_and_titles_before_descriptions(open_friendly: OpenPopup) -> None:
    page = open_friendly()
    expect(tool_button(page, "mcp__friendly__now")).to_be_visible()
    search = page.get_by_label("Filter tools")
    search.fill("time")
    # update_plan matches too ("one step … at a time"), but a title match ranks first and Enter opens it.
    expect(tool_button(page, "update_plan")).to_be_visible()
    expect(tool_button(page, "mcp__friendly__now")).to_have_class(re.compile(r"\bbest\b"))
    search.press("Enter")
    expect(page.locator("#tool-title")).to_have_text("Current Time")

    page.locator("#back").click()
    search.fill("read")  # a name/title word before words of descriptions, within a group too
    # Python ranks the filter asynchronously: wait for its answer to be drawn, not the list "time" left.
    shown = page.locator('.tool-group[data-group="mcp:friendly"] li:not([hidden]) button.tool')
    expect(shown.first).to_have_attribute("data-tool", "mcp__friendly__read_file")
    search.fill("")
    expect(page.locator(".best")).to_have_count(0)


def test_required_fields_are_checked_before_sending(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    page = open_popup()
    open_update_plan(page)
    before = len(history(ext_without_host))
    page.get_by_role("button", name="Run", exact=True).click()
    plan_error = page.locator('.field[data-name="plan"] > .field-error')
    expect(plan_error).to_have_text("Required: add an item")
    plan_group = page.get_by_role("group", name="plan")
    expect(plan_group).to_have_attribute("aria-invalid", "true")
    expect(plan_group).to_be_focused()
    expect(page.locator('.field[data-name="explanation"] .field-error')).to_be_hidden()  # optional

    page.get_by_label("Raw JSON").check()  # moving to the raw view is allowed with the field still empty
    page.get_by_label("Arguments (JSON)").fill('{"explanation": "no plan"}')
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#raw-error")).to_have_text("Required, but missing: plan")
    page.wait_for_timeout(300)
    assert len(history(ext_without_host)) == before, "a call was sent without its required field"
    expect(page.locator("#result")).to_be_empty()

    page.get_by_label("Arguments (JSON)").fill(json.dumps({"plan": PLAN}))
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#result .result")).to_contain_text("Plan updated")


def test_the_result_is_scrolled_into_view_and_its_text_copied(
    open_popup: OpenPopup, ext_without_host: Extension
) -> None:
    ext_without_host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = open_popup()
    page.set_viewport_size(SHORT_POPUP)
    open_update_plan(page)
    fill_plan_form(page, "scrolled")
    page.evaluate("window.scrollTo(0, 0)")
    field(page, "explanation").press("Enter")  # from the top of the form: the result is below the fold
    result = page.locator("#result .result")
    expect(result).to_contain_text("Plan updated")
    expect(result).to_be_in_viewport(ratio=0.99)  # all of it (to a subpixel), not a part at the edge

    copy = result.get_by_role("button", name="Copy the result's text")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == result.locator("pre").inner_text()


def test_a_cancelled_call_shows_as_cancelled_not_failed(open_friendly: OpenPopup) -> None:
    page = open_friendly()
    tool_button(page, "mcp__friendly__wait").click()
    field(page, "seconds").fill("30")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#call")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    result = page.locator("#result .result")
    expect(result).to_have_attribute("data-kind", "cancelled")
    expect(result.locator(".badge")).to_have_text("Cancelled")
    expect(page.locator("#result .result-error")).to_have_count(0)


def test_an_exited_host_is_reconnected_with_a_button(open_friendly: OpenPopup, friendly_config: Path) -> None:
    page = open_friendly()
    expect(page.locator("#status")).to_have_text("Python ready · host connected")
    expect(page.get_by_role("button", name="Reconnect")).to_be_hidden()
    expect(page.locator("#no-servers")).to_be_hidden()  # the friendly server is configured
    pids = host_pids(friendly_config)
    assert len(pids) == 1, pids
    os.kill(pids[0], signal.SIGKILL)
    expect(page.locator("#status")).to_have_text("Python ready · host exited")
    page.get_by_role("button", name="Reconnect").click()
    expect(page.locator("#status")).to_have_text("Python ready · host connected")
    expect(page.get_by_role("button", name="Reconnect")).to_be_hidden()
    assert host_pids(friendly_config) not in ([], pids)


def test_a_host_without_servers_says_how_to_add_one(ext_with_host: Extension) -> None:
    page = ext_with_host.context.new_page()
    try:
        page.goto(f"chrome-extension://{ext_with_host.id}/ui/popup.html")
        expect(page.locator("#status")).to_have_text("Python ready · host connected")
        hint = page.locator("#no-servers")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("No MCP server is configured.")
        expect(hint).to_contain_text("tabgate-host config import FILE")
    finally:
        page.close()
