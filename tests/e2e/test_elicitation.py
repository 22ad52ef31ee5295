"""A server's questions (MCP elicitation) answered by a person through the popup, end to end: the everything
server asks through the real host, the service worker shows the question in the open popup (or in a window
of its own when none is open), Python checks the answer, and the server gets it (issue 13)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Playwright, expect

from tests.support.axe import shoot_both_schemes
from tests.support.browser import Extension, launch_with_mcp
from tests.support.npm_packages import everything_server, node_path

pytestmark = pytest.mark.e2e

EVERYTHING = "2026.8.31"  # has trigger-elicitation-request and trigger-url-elicitation
FORM_TOOL = "mcp__everything__trigger-elicitation-request"
URL_TOOL = "mcp__everything__trigger-url-elicitation"
QUICK_TOOL = "mcp__quick__trigger-elicitation-request"


@pytest.fixture(scope="module")
def ext(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str]
) -> Iterator[Extension]:
    entry = json.dumps(str(everything_server(EVERYTHING)))
    server = f'command = {json.dumps(node_path())}\nargs = [{entry}, "stdio"]\n'
    # `quick`: the same server with a 3 s tool limit, for a question nobody answers.
    config = (
        f"[mcp_servers.everything]\n{server}startup_timeout_sec = 30\n\n"
        f"[mcp_servers.quick]\n{server}startup_timeout_sec = 30\ntool_timeout_sec = 3\n"
    )
    folder = tmp_path_factory.mktemp("elicitation")
    with launch_with_mcp(
        pw, folder, config, host_env, offering=frozenset({FORM_TOOL, URL_TOOL, QUICK_TOOL})
    ) as ext:
        # The harness's own page is not a popup: only the pages a test opens show questions.
        ext.page.goto(f"chrome-extension://{ext.id}/build-info.json")
        yield ext


def start_call(ext: Extension, tool: str, arguments: dict[str, Any], call_id: str) -> None:
    item = {"type": "function_call", "name": tool, "arguments": json.dumps(arguments), "call_id": call_id}
    ext.page.evaluate(
        "([m, id]) => { (window.calls ??= {})[id] = chrome.runtime.sendMessage(m); }",
        [{"type": "dispatch", "item": item}, call_id],
    )


def outcome(ext: Extension, call_id: str) -> str:
    answer: dict[str, Any] = ext.page.evaluate("(id) => window.calls[id]", call_id)
    assert answer.get("output", {}).get("type") == "mcp_tool_call_output", answer
    result = answer["output"]["result"]["Ok"]
    return "\n".join(part["text"] for part in result["content"] if part["type"] == "text")


def open_popup(ext: Extension) -> Page:
    page = ext.context.new_page()
    page.set_viewport_size({"width": 480, "height": 600})
    page.goto(f"chrome-extension://{ext.id}/ui/popup.html")
    expect(page.locator("#status")).to_contain_text("Python ready")
    return page


def field(card: Locator, name: str) -> Locator:
    return card.locator(f'[data-name="{name}"]').locator("input, select, textarea").first


def test_a_question_is_answered_through_the_popup_form(ext: Extension) -> None:
    page = open_popup(ext)
    start_call(ext, FORM_TOOL, {}, "ask-1")
    card = page.locator("form.elicit")
    expect(card.get_by_role("heading")).to_have_text("everything asks")
    expect(card).to_contain_text("Please provide inputs for the following fields:")
    # Built from the schema: titles as labels, defaults filled in, titled choices shown by title.
    expect(card.get_by_label("String with default")).to_have_value("It was a dark and stormy night.")
    expect(field(card, "titledSingleSelectEnum").locator("option:checked")).to_have_text("Superman")
    expect(field(card, "legacyTitledEnum").locator("option:checked")).to_have_text("Cats")
    field(card, "name").fill("Ada Lovelace")
    field(card, "email").fill("not an address")
    shoot_both_schemes(page, "popup-elicitation")

    card.get_by_role("button", name="Accept").click()
    # Python refused the email and said why, next to the field; nothing went to the server.
    expect(card.locator('[data-name="email"] .field-error')).to_have_text("Enter an email address")
    field(card, "email").fill("ada@example.org")
    card.get_by_role("button", name="Accept").click()
    expect(card).to_have_count(0)
    text = outcome(ext, "ask-1")
    assert "- Name: Ada Lovelace" in text
    assert "- Email: ada@example.org" in text
    page.close()


def test_a_declined_question_tells_the_server_so(ext: Extension) -> None:
    page = open_popup(ext)
    start_call(ext, FORM_TOOL, {}, "ask-2")
    page.locator("form.elicit").get_by_role("button", name="Decline").click()
    expect(page.locator("form.elicit")).to_have_count(0)
    assert "User declined to provide the requested information" in outcome(ext, "ask-2")
    page.close()


def test_a_url_question_shows_where_it_leads_and_opens_nothing_by_itself(ext: Extension) -> None:
    page = open_popup(ext)
    pages_before = len(ext.context.pages)
    start_call(
        ext, URL_TOOL, {"url": "https://pay.example.org/checkout?id=7", "message": "Finish paying"}, "url-1"
    )
    card = page.locator("form.elicit")
    expect(card.locator(".elicit-origin")).to_have_text("Opens https://pay.example.org")
    expect(card).to_contain_text("Finish paying")
    assert len(ext.context.pages) == pages_before
    shoot_both_schemes(page, "popup-elicitation-url")
    card.get_by_role("button", name="Done").click()
    expect(card).to_have_count(0)
    assert '"action": "accept"' in outcome(ext, "url-1")
    page.close()


def test_with_no_popup_open_the_question_gets_a_window_and_closing_it_cancels(ext: Extension) -> None:
    with ext.context.expect_page() as opened:
        start_call(ext, FORM_TOOL, {}, "ask-3")
    window = opened.value
    window.wait_for_load_state()
    assert window.url.endswith("popup.html?questions=1")
    expect(window.locator("form.elicit").get_by_role("heading")).to_have_text("everything asks")
    window.close()
    assert "User cancelled the elicitation dialog" in outcome(ext, "ask-3")


def test_a_window_opened_for_a_question_closes_once_it_is_answered(ext: Extension) -> None:
    with ext.context.expect_page() as opened:
        start_call(ext, FORM_TOOL, {}, "ask-4")
    window = opened.value
    card = window.locator("form.elicit")
    field(card, "name").fill("Grace")
    with window.expect_event("close"):
        card.get_by_role("button", name="Accept").click()
    assert "- Name: Grace" in outcome(ext, "ask-4")


def test_a_question_nobody_answers_goes_away_when_its_time_is_up(ext: Extension) -> None:
    page = open_popup(ext)
    start_call(ext, QUICK_TOOL, {}, "ask-5")
    card = page.locator("form.elicit")
    expect(card.get_by_role("heading")).to_have_text("quick asks")
    expect(card).to_have_count(0)  # the server's 3 s limit, then the question is dropped
    answer: dict[str, Any] = ext.page.evaluate("(id) => window.calls[id]", "ask-5")
    assert "did not answer within 3 s" in json.dumps(answer), answer
    page.close()
