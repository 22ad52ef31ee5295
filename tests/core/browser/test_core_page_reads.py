"""browser_page's title, url, text, html and links: the page sends what it read within the bounds Python
gives, and Python makes the answer — cut at `maxChars` characters as Python counts them, saying when it
cut."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.browser.page_reads import MAX_LINKS
from core.runtime.facade import Service
from tests.core.core_fakes import FakeBrowser, dispatch, function_call
from tests.core.fenced import unwrapped

pytestmark = pytest.mark.unit


async def read(sent: dict[str, Any], **args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the model gets when the page sends `sent`, and what the page was asked for."""
    browser = FakeBrowser({"browser_page": sent})
    svc = Service(emit=lambda event: None, browser=browser)
    answer = await svc.handle(dispatch(function_call("browser_page", json.dumps(args))))
    assert answer["success"] is True, answer
    [(_, asked)] = browser.tool_calls()
    return json.loads(unwrapped(answer["output"]["output"])), asked


async def test_the_page_may_send_twice_the_characters_asked_for_and_one_more_link_than_kept() -> None:
    _, asked = await read({"text": "abc"}, action="text", maxChars=5)
    assert (asked["maxUnits"], asked["maxLinks"]) == (12, MAX_LINKS + 1)


async def test_text_and_html_are_cut_at_max_chars_and_always_say_whether() -> None:
    assert (await read({"text": "abcdef"}, action="text", maxChars=6))[0] == {
        "text": "abcdef",
        "truncated": False,
    }
    assert (await read({"text": "abcdefg"}, action="text", maxChars=6))[0] == {
        "text": "abcdef",
        "truncated": True,
    }
    assert (await read({"html": "<p>x</p>"}, action="html", maxChars=3))[0] == {
        "html": "<p>",
        "truncated": True,
    }


async def test_a_cut_counts_characters_not_utf16_units_so_it_never_splits_one() -> None:
    # "ab😀cd": the emoji is two UTF-16 units in the page, one character here.
    assert (await read({"text": "ab😀cd"}, action="text", maxChars=3))[0] == {
        "text": "ab😀",
        "truncated": True,
    }
    # A page cut mid-character sends a lone half (it arrives as U+FFFD): beyond maxChars, so never shown.
    assert (await read({"text": "ab😀\ufffd"}, action="text", maxChars=3))[0] == {
        "text": "ab😀",
        "truncated": True,
    }


async def test_a_title_or_an_address_says_it_was_cut_only_when_it_was() -> None:
    assert (await read({"title": "Shop"}, action="title"))[0] == {"title": "Shop"}
    long_title = "t" * 20_001
    assert (await read({"title": long_title}, action="title"))[0] == {
        "title": "t" * 20_000,
        "truncated": True,
    }
    assert (await read({"url": "https://a.test/"}, action="url"))[0] == {"url": "https://a.test/"}


async def test_links_stop_at_max_chars_of_text_and_addresses_and_say_so() -> None:
    links = [{"text": f"L{i}", "href": f"https://a.test/{i}"} for i in range(5)]  # 18 characters each
    assert (await read({"links": links}, action="links", maxChars=100))[0] == {"links": links}
    assert (await read({"links": links}, action="links", maxChars=54))[0] == {
        "links": links[:3],
        "truncated": True,
    }
    # A link longer than the whole answer may be (the page cut its address) is never shown cut.
    huge = [{"text": "big", "href": "https://a.test/" + "x" * 200}]
    assert (await read({"links": huge}, action="links", maxChars=100))[0] == {"links": [], "truncated": True}


async def test_links_stop_at_max_links_and_say_there_were_more() -> None:
    links = [{"text": "", "href": f"h{i}"} for i in range(MAX_LINKS + 1)]
    answer, _ = await read({"links": links}, action="links", maxChars=1_000_000)
    assert answer == {"links": links[:MAX_LINKS], "truncated": True}
