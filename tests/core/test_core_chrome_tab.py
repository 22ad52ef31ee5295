"""A tab as chrome.tabs reports it, and the tab tools' answers (core/calls/chrome_tab.py): which URL a tab
shows is read in Python, once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.calls.chrome_tab import ChromeTab, address_answer, tab_answer, tabs_answer
from core.calls.tab_scope import TabFacts

pytestmark = pytest.mark.unit

LOADED = {
    "id": 4, "windowId": 1, "index": 0, "url": "https://a.test/", "title": "A", "active": True,
    "pinned": False, "status": "complete", "favIconUrl": "data:image/png;base64,AAAA", "groupId": -1,
}  # fmt: skip
# A tab that has not committed its first page: Chrome gives url "" and the destination in pendingUrl.
OPENING = {"id": 5, "url": "", "pendingUrl": "https://b.test/start", "title": "", "status": "loading"}
# A tab that shows one page and is loading another.
LEAVING = {
    "id": 6,
    "url": "https://a.test/",
    "pendingUrl": "https://b.test/",
    "title": "A",
    "status": "loading",
}


def test_a_loaded_tab_answers_chromes_fields_the_tools_name_and_nothing_else() -> None:
    assert tab_answer(LOADED) == {
        "id": 4, "windowId": 1, "index": 0, "url": "https://a.test/", "title": "A", "active": True,
        "pinned": False, "status": "complete",
    }  # fmt: skip


def test_a_tab_not_yet_committed_shows_where_it_is_going() -> None:
    assert ChromeTab.model_validate(OPENING).shown_url == "https://b.test/start"
    answer = tab_answer(OPENING)
    assert answer["url"] == answer["pendingUrl"] == "https://b.test/start"


def test_a_tab_loading_another_page_shows_the_one_it_has_and_says_where_it_goes() -> None:
    answer = tab_answer(LEAVING)
    assert (answer["url"], answer["pendingUrl"]) == ("https://a.test/", "https://b.test/")


def test_a_tab_without_a_url_at_all_shows_nothing() -> None:
    assert tab_answer({"id": 9}) == {"id": 9, "url": "", "title": ""}
    # Fields Chrome left undefined, as they may cross the bridge.
    assert tab_answer({"id": 9, "url": None, "pendingUrl": None, "title": None, "status": None}) == {
        "id": 9, "url": "", "title": "",
    }  # fmt: skip


def test_current_url_names_the_tab_its_address_and_whether_it_loads() -> None:
    assert address_answer(OPENING) == {"tabId": 5, "url": "https://b.test/start", "status": "loading"}
    assert address_answer({"id": 9}) == {"tabId": 9, "url": ""}


def test_a_query_answers_every_tab_and_refuses_anything_but_a_list() -> None:
    assert [tab["id"] for tab in tabs_answer([LOADED, OPENING])] == [4, 5]
    with pytest.raises(ValueError, match="not a list"):
        tabs_answer(LOADED)


def test_an_answer_without_a_tab_id_is_refused() -> None:
    with pytest.raises(ValidationError):
        tab_answer({"url": "https://a.test/"})
    with pytest.raises(ValidationError):
        tab_answer({"id": "4"})  # Chrome's ids are numbers


def test_the_policy_reads_the_same_url_as_the_answer() -> None:
    facts = TabFacts.from_wire({**OPENING, "granted": True})
    assert (facts.id, facts.url, facts.granted) == (5, "https://b.test/start", True)
