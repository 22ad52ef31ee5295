"""Pages of any size (contract §7.1), in real Chromium: a snapshot costs what it returns, `find` reaches a far
element in one call and answers from the last outline while the page is unchanged, `snapshot {since: "last"}`
answers only what changed, and the page's text stays inside its fenced block.

How long each answer takes is a bench figure (tests/support/bench_browser.py), not an assert here."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from tests.core.fenced import fenced, page_of
from tests.e2e.test_browser_tools import call, ok, ref_of, says
from tests.support.browser import Extension, grant_site_access, launch
from tests.support.local_site import serve

pytestmark = pytest.mark.e2e

PAGES = Path(__file__).resolve().parent / "pages"
BUDGET = 20_000 + 200  # the default maxChars, and the page-content markers and the "Page:" line around it


class _Pages(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(partial(_Pages, directory=str(PAGES))) as origin:  # type: ignore[arg-type]
        yield origin


@pytest.fixture(scope="module")
def ext(pw: Playwright, tmp_path_factory: pytest.TempPathFactory, site: str) -> Iterator[Extension]:
    profile = tmp_path_factory.mktemp("profile-scale") / "profile"
    with launch(pw, profile):
        pass
    grant_site_access(pw, profile, [site])
    with launch(pw, profile, open_timeout_ms=120_000) as extension:
        extension.wait_python_ready()
        yield extension


@pytest.fixture
def tab(ext: Extension) -> Iterator[Callable[[str], int]]:
    opened: list[int] = []

    def open_url(url: str) -> int:
        tab_id: int = ok(ext, "browser_tab", action="create", url=url)["id"]
        opened.append(tab_id)
        # A page of 100,000 links takes its time to load on a busy machine (25 s is the most one wait takes).
        wait = {"action": "wait_for_load", "tabId": tab_id, "timeoutMs": 25_000}
        assert any(call(ext, "browser_navigation", wait)[0] for _ in range(3)), f"{url} did not load in 75 s"
        return tab_id

    yield open_url
    for tab_id in opened:
        ok(ext, "browser_tab", action="close", tabId=tab_id)


def find(ext: Extension, tab_id: int, text: str) -> str:
    return says(ext, "browser_page", action="find", tabId=tab_id, text=text)


def test_a_1000_row_table_fits_the_budget_and_a_far_row_is_found_then_clicked_in_two_calls(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    tab_id = tab(f"{site}/rows.html")
    first = says(ext, "browser_page", action="snapshot", tabId=tab_id)
    assert len(first) <= BUDGET
    outline = page_of(first).splitlines()
    assert outline[1:4] == [
        'heading "All orders" level=1 [ref=e1]',
        'table "All orders" [ref=e2]',
        '  columns: "Id" | "Customer" | "Total" | "Action"',
    ]
    assert outline[4] == '  row: "0001" | "Grace" | "7.00" | button "Refund" [ref=e3]'
    assert first.splitlines()[-1].startswith("[cut: lines from ")
    # Row 877 is far past the cut: find names it, and its button's ref clicks it.
    found = page_of(find(ext, tab_id, "0877")).splitlines()[1:]
    row = r'row: "0877" \| "Grace" \| "139.00" \| button "Refund" \[ref=e\d+\]'
    assert len(found) == 1 and re.fullmatch(row, found[0]), found
    says(ext, "browser_dom", action="click", tabId=tab_id, ref=ref_of(found[0], 'row: "0877"'))
    done = page_of(find(ext, tab_id, "Refunded")).splitlines()[1:]
    assert len(done) == 1 and re.fullmatch(
        r"paragraph \[ref=e\d+\]: Refunded 0877 \(trusted: true\)", done[0]
    )


def test_reading_the_table_on_after_each_cut_fills_every_answer_until_row_877(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    tab_id = tab(f"{site}/rows.html")
    answer = says(ext, "browser_page", action="snapshot", tabId=tab_id)
    calls = 1
    while '"0877"' not in answer:
        assert len(page_of(answer)) > 15_000, f"answer {calls} holds only {len(page_of(answer))} characters"
        offset = re.search(r'"offset": (\d+)', answer.splitlines()[-1])
        assert offset, f"answer {calls} has no way to read on: {answer.splitlines()[-1]}"
        answer = says(ext, "browser_page", action="snapshot", tabId=tab_id, offset=int(offset[1]))
        calls += 1
    assert calls <= 5  # 1,000 rows of about 60 characters in answers of 20,000


@pytest.mark.parametrize("links", ["plain", "into the page"])
def test_a_100000_element_page_answers_within_the_budget_and_a_far_item_is_found_then_clicked(
    ext: Extension, tab: Callable[[str], int], site: str, links: str
) -> None:
    tab_id = tab(f"{site}/links.html?n=100000" + ("&hash=1" if links == "into the page" else ""))
    started = time.monotonic()
    first = says(ext, "browser_page", action="snapshot", tabId=tab_id)
    took = time.monotonic() - started
    assert len(first) <= BUDGET
    assert page_of(first).splitlines()[1:4] == [
        'heading "Index" level=1 [ref=e1]',
        "list [ref=e2]",
        "  listitem [ref=e3]",
    ]
    print(f"100k {links}: snapshot {took:.2f} s")  # a figure for the log; the bench keeps the target
    started = time.monotonic()
    found = find(ext, tab_id, "Item 98765")
    print(f"100k {links}: find {time.monotonic() - started:.2f} s")
    line = page_of(found).splitlines()[1:]
    assert len(line) == 1 and line[0].startswith('link "Item 98765" [ref='), found
    says(ext, "browser_dom", action="click", tabId=tab_id, ref=ref_of(found, 'link "Item 98765"'))
    assert "paragraph" in find(ext, tab_id, "Picked Item 98765 (trusted: true)")


def form_page(ext: Extension, tab: Callable[[str], int], site: str) -> int:
    """form.html once it has added its own late line (300 ms after loading)."""
    tab_id = tab(f"{site}/form.html")
    says(ext, "browser_dom", action="wait_for", tabId=tab_id, text="Arrived late")
    return tab_id


def test_find_answers_from_the_last_outline_and_sees_a_change_the_page_made_since(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    tab_id = form_page(ext, tab, site)
    says(ext, "browser_page", action="snapshot", tabId=tab_id)  # the whole page: finds answer from it
    assert page_of(find(ext, tab_id, "clicked")).splitlines()[1:] == ["paragraph [ref=e5]: Not clicked"]
    again = find(ext, tab_id, "clicked")  # the page has not changed: the same outline answers
    assert page_of(again).splitlines()[1:] == ["paragraph [ref=e5]: Not clicked"]
    go = ref_of(find(ext, tab_id, "Go"), 'button "Go"')
    says(ext, "browser_dom", action="click", tabId=tab_id, ref=go)
    assert page_of(find(ext, tab_id, "clicked")).splitlines()[1:] == ["paragraph [ref=e5]: Clicked 1 time(s)"]
    # Typing changes a field's value but no attribute: the outline is built again all the same.
    name = ref_of(says(ext, "browser_page", action="snapshot", tabId=tab_id), 'textbox "Name"')
    says(ext, "browser_dom", action="type", tabId=tab_id, ref=name, text="ada")
    assert 'value="ada"' in find(ext, tab_id, "Name")


def test_snapshot_since_last_answers_only_the_lines_that_changed(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    tab_id = form_page(ext, tab, site)
    first = says(ext, "browser_page", action="snapshot", tabId=tab_id, since="last")
    assert first.startswith("You had no earlier snapshot of this page: the whole outline.")
    go = ref_of(first, 'button "Go"')
    says(ext, "browser_dom", action="click", tabId=tab_id, ref=go)
    says(ext, "browser_dom", action="type", tabId=tab_id, selector="#name", text="ada")
    changed = says(ext, "browser_page", action="snapshot", tabId=tab_id, since="last")
    assert changed.startswith("Changes since your last snapshot of this page: 0 added, 3 changed, 0 removed")
    field, mirror, status = page_of(changed).splitlines()[1:]
    assert field == '~ textbox "Name" focused value="ada" [ref=e2]'
    assert re.fullmatch(r"~ text \[ref=e\d+\]: Mirror: ada", mirror)  # a new text node: the page replaced it
    assert status == "~ paragraph [ref=e5]: Clicked 1 time(s)"
    unchanged = says(ext, "browser_page", action="snapshot", tabId=tab_id, since="last")
    assert unchanged.startswith("Nothing changed since your last snapshot of this page.")


def test_changes_and_finds_keep_a_forged_end_marker_inside_the_block(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    tab_id = tab(f"{site}/forged.html")
    says(ext, "browser_page", action="snapshot", tabId=tab_id, since="last")
    says(ext, "browser_dom", action="click", tabId=tab_id, selector="#ok")
    for answer in (
        says(ext, "browser_page", action="snapshot", tabId=tab_id, since="last"),
        find(ext, tab_id, "end of page content"),
    ):
        fenced(answer)  # exactly one block, its two markers with the same fresh nonce
        nonce = re.findall(r"--- page content ([0-9a-f]{16}) ", answer)[0]
        ends = [line for line in answer.splitlines() if "end of page content" in line and nonce in line]
        assert len(ends) == 1 and answer.splitlines()[-1] == ends[0]
        assert "0123456789abcdef" not in answer


def test_find_reaches_words_in_shadow_roots_in_names_only_attributes_give_and_in_role_words(
    ext: Extension, tab: Callable[[str], int], site: str
) -> None:
    shadow = tab(f"{site}/shadow.html")
    assert page_of(find(ext, shadow, "press deep")).splitlines()[1:] == ['button "Press deep" [ref=e1]']
    table = tab(f"{site}/table.html")
    shipped = page_of(find(ext, table, "shipped")).splitlines()[1:]  # only its aria-label says so
    assert shipped == [
        'row: "0878" | "Linus" | checkbox "Shipped" checked [ref=e1] | button "Refund" disabled [ref=e2]'
    ]
    assert len(page_of(find(ext, table, "button")).splitlines()[1:]) == 4  # a role word: every row with one
