"""An agent's call in plain words (core/agents/plain_words.py): what the person reads in a question, a
running call
and a notification, and what an agent is told when refused."""

from __future__ import annotations

from typing import Any

import pytest

from core.agents.plain_words import call_words, placed, quoted, summarize

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("tool", "args", "words"),
    [
        ("browser_dom", {"action": "click", "ref": "e5"}, "click the element e5"),
        (
            "browser_dom",
            {"action": "click", "selector": "#buy", "clickCount": 2},
            "double-click the element matching “#buy”",
        ),
        ("browser_dom", {"action": "click", "ref": "e5", "button": "right"}, "right-click the element e5"),
        (
            "browser_dom",
            {"action": "click", "ref": "e1", "modifiers": ["Shift"]},
            "click the element e1 holding Shift",
        ),
        (
            "browser_dom",
            {"action": "type", "ref": "e5", "text": "ada", "clear": True, "submit": True},
            "type “ada” into the element e5, replacing what it holds and press Enter",
        ),
        ("browser_dom", {"action": "press", "key": "Control+a"}, "press “Control+a”"),
        (
            "browser_dom",
            {"action": "select", "selector": "#c", "values": ["Blue"]},
            "choose “Blue” in the element matching “#c”",
        ),
        ("browser_dom", {"action": "check", "ref": "e7", "checked": False}, "uncheck the element e7"),
        (
            "browser_dom",
            {"action": "fill_form", "fields": [{"ref": "e5", "value": "ada"}, {"ref": "e7", "value": True}]},
            "fill in 2 field(s): the element e5 = “ada”; the element e7 = true",
        ),
        (
            "browser_dom",
            {"action": "drag", "ref": "e1", "toRef": "e2"},
            "drag the element e1 onto the element e2",
        ),
        (
            "browser_dom",
            {"action": "upload", "ref": "e4", "paths": ["/u/cv.pdf"]},
            "upload “/u/cv.pdf” into the element e4",
        ),
        (
            "browser_dom",
            {"action": "dialog", "accept": True, "promptText": "Ada"},
            "accept the page's dialog, answering “Ada”",
        ),
        ("browser_dom", {"action": "dialog", "accept": False}, "dismiss the page's dialog"),
        ("browser_dom", {"action": "scroll", "y": 1200}, "scroll the page to y=1200"),
        ("browser_dom", {"action": "wait_for", "text": "Done"}, "wait until “Done” appears"),
        ("browser_dom", {"action": "wait_for", "textGone": "Loading"}, "wait until “Loading” is gone"),
        (
            "browser_navigation",
            {"action": "navigate", "url": "https://a.example/x"},
            "go to “https://a.example/x”",
        ),
        (
            "browser_tab",
            {"action": "create", "url": "https://a.example"},
            "open a new tab at “https://a.example”",
        ),
        ("browser_tab", {"action": "close"}, "close the tab"),
        ("browser_page", {"action": "text"}, "read the page's text"),
        (
            "browser_storage",
            {"action": "set", "items": {"k": 1, "j": 2}},
            "store “k”, “j” in Tabgate's tool storage",
        ),
    ],
)
def test_each_browser_action_reads_as_what_it_does_with_its_arguments(
    tool: str, args: dict[str, Any], words: str
) -> None:
    assert call_words(tool, args["action"], args) == words


def test_a_tool_without_a_phrase_is_run_with_its_arguments_named() -> None:
    assert call_words("update_plan", None, {"plan": []}) == "run the tool update_plan with plan=[]"
    assert (
        call_words("mcp__notes__add", None, {"title": "x", "body": "y"}, mcp=True)
        == "run the MCP tool mcp__notes__add with title=“x”, body=“y”"
    )


def test_long_values_and_long_lists_are_cut_so_a_question_stays_readable() -> None:
    assert quoted("x" * 100) == "“" + "x" * 58 + "…"
    assert call_words("browser_dom", "select", {"ref": "e1", "values": list("abcdef")}) == (
        "choose “a”, “b”, “c”, “d” and 2 more in the element e1"
    )


def test_the_tab_is_named_in_place_of_the_tab_or_after_what_happens_inside_it() -> None:
    assert (
        placed("close the tab", (7, "Cart"), "https://shop.example")
        == "close tab 7 “Cart” on https://shop.example"
    )
    assert placed("click the element e5", (7, ""), None) == "click the element e5 in tab 7"
    assert placed("list its tabs", None, None) == "list its tabs"


def test_a_question_going_back_says_the_destination_is_unknown() -> None:
    assert summarize(
        "browser_navigation", "back", {}, tab=(3, "Shop"), site="https://a.example", unknown_destination=True
    ) == (
        "go back a page in tab 3 “Shop” on https://a.example (to whatever page the tab's history holds, "
        "which may be another site)"
    )


def test_untrusted_text_stays_text() -> None:
    # A page title or an argument holding markup is shown as the characters it holds (drawn as text nodes).
    assert placed("close the tab", (1, "<img src=x onerror=alert(1)>"), None) == (
        "close tab 1 “<img src=x onerror=alert(1)>”"
    )
