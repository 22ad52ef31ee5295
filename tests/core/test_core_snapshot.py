"""The outline from what the page-side walk answered for the e2e fixture pages (tests/support/record_walk.py),
the refs it names, reading on after a cut, and the decisions around it: a walk cut at its budget, whether the
last outline still holds, and what changed since a caller's last snapshot."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.browser.changes import changes
from core.browser.executor import TabState
from core.browser.page_walk import Walked, same_page
from core.browser.refs import NodeRef, PageKey, RefTable, TabRefs
from core.browser.snapshot import FrameTree, Outline, build_outline, parse
from core.calls.errors import RespondToModel

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "walk"


def recorded(
    name: str, *, withheld: dict[str, str] | None = None, keep: int | None = None
) -> list[FrameTree]:
    """The page's frames as Python builds them from the walk; `keep`: the top frame's walk stopped after that
    many nodes (as a walk does at its budget)."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    frames = []
    for f in data["frames"]:
        walk = f["walk"]
        nodes = walk["nodes"] if keep is None or f["parentId"] else walk["nodes"][:keep]
        cut = keep is not None and not f["parentId"] and keep < len(walk["nodes"])
        roots = parse(nodes, (None, f["frameId"], walk["doc"]), cut=cut)
        parent = next((p for p in data["frames"] if p["frameId"] == f["parentId"]), None)
        owner = (
            None if parent is None else PageKey(None, parent["frameId"], parent["walk"]["doc"], f["owner"])
        )
        origin = f["url"].split("/")[2]
        frames.append(
            FrameTree(f["frameId"], f["parentId"], None, f["url"], roots, owner, (withheld or {}).get(origin))
        )
    return frames


def outline_of(name: str, **kwargs: Any) -> str:
    return build_outline(recorded(name, **kwargs)).render(RefTable(0), max_chars=20_000)


def test_a_cross_origin_frame_sits_under_its_iframe_in_document_order() -> None:
    assert outline_of("login") == (
        'heading "Shop" level=1 [ref=e1]\n'
        "paragraph [ref=e2]: Sign in below.\n"
        'iframe "Sign in" [ref=e3]\n'
        "  form [ref=e4]\n"
        '    textbox "User" [ref=e5]\n'
        '    textbox "Password" [ref=e6]\n'
        '    checkbox "Remember me" unchecked [ref=e7]\n'
        '    button "Sign in" [ref=e8]\n'
        "  status [ref=e9]: Signed out"
    )


def test_a_frame_the_user_did_not_grant_is_named_not_shown() -> None:
    text = outline_of("login", withheld={"127.0.0.1:8002": "a frame from http://127.0.0.1:8002 (no access)"})
    assert text.splitlines()[2:] == [
        'iframe "Sign in" [ref=e3]',
        "  [not shown: a frame from http://127.0.0.1:8002 (no access)]",
    ]


def test_a_button_inside_a_shadow_root_is_in_the_outline() -> None:
    assert outline_of("shadow") == (
        'heading "Widgets" level=1 [ref=e1]\n'
        'region "Card" [ref=e2]\n'
        '  heading "Deep card" level=2 [ref=e3]\n'
        '  button "Press deep" [ref=e4]\n'
        "paragraph [ref=e5]: Nothing pressed"
    )


def test_labels_are_said_once_and_states_and_values_are_shown() -> None:
    text = outline_of("form")
    assert text.splitlines()[:2] == ['heading "Fixture form" level=1 [ref=e1]', 'textbox "Name" [ref=e2]']
    assert "text [ref=" not in text.split("\n")[1]  # the label's own text "Name" is not repeated
    assert 'combobox "Colour" collapsed value="Red" [ref=e6]' in text
    assert '  option "Red" selected [ref=e7]' in text


def test_structure_only_nodes_give_their_children_to_the_parent() -> None:
    # hover.html: <li class=menu><span>Products</span>…: the span is generic, its text joins the list item.
    assert outline_of("hover") == (
        "navigation [ref=e1]\n  list [ref=e2]\n    listitem [ref=e3]: Products\n"
        "paragraph [ref=e4]: Not hovered"
    )


def test_a_big_page_is_cut_within_the_budget_and_reads_on_from_the_offset() -> None:
    page = build_outline(recorded("big"))
    refs = RefTable(0)
    assert len(page.lines) == 1002  # 200 products × 5 lines, the heading and main
    first = page.render(refs, max_chars=2000)
    assert len(first) <= 2000
    *shown, cut = first.splitlines()
    match = re.fullmatch(r'\[cut: lines (\d+)–1002 of 1002 not shown\. Read on with browser_page '
                         r'\{"action": "snapshot", "offset": (\d+)\}, '
                         r'or read one part with \{"ref": \.\.\.\} '
                         r"of a line above\]", cut)  # fmt: skip
    assert match is not None, cut
    assert int(match[1]) == len(shown) + 1 and int(match[2]) == len(shown)
    pages, offset = [shown], len(shown)
    while offset < len(page.lines):
        text = page.render(refs, offset=offset, max_chars=2000)
        assert len(text) <= 2000
        lines = text.splitlines()
        if lines[-1].startswith("[cut: "):
            lines = lines[:-1]
        pages.append(lines)
        offset += len(lines)
    everything = [line for chunk in pages for line in chunk]
    assert everything == page.render(refs, max_chars=10_000_000).splitlines()


def test_a_walk_stopped_at_its_budget_ends_before_a_line_it_may_have_cut_and_says_the_page_goes_on() -> None:
    whole = build_outline(recorded("big")).render(RefTable(0), max_chars=10_000_000).splitlines()
    # Stopped right after a button's own node, before its text: the button's line is left out, not shown
    # half-made, and the outline says the page goes on.
    data = json.loads((FIXTURES / "big.json").read_text())["frames"][0]["walk"]["nodes"]
    button = next(i for i, n in enumerate(data) if n[2] == "button" and n[3] == "Add 3")
    part = build_outline(recorded("big", keep=button + 1))
    assert not part.complete
    text = part.render(RefTable(0), max_chars=10_000_000).splitlines()
    assert text[:-1] == whole[: len(text) - 1]
    assert text[-2] == '  link "Details 3" [ref=e20]'
    assert text[-1].startswith(f"[cut: lines from {len(text)} on not shown. Read on with")


def test_a_table_row_the_walk_stopped_in_is_not_shown() -> None:
    data = json.loads((FIXTURES / "table.json").read_text())["frames"][0]["walk"]["nodes"]
    cancel = next(i for i, n in enumerate(data) if n[2] == "button" and n[3] == "Cancel")
    text = build_outline(recorded("table", keep=cancel)).render(RefTable(0), max_chars=20_000)
    assert "0876" in text and "0877" not in text


def test_reading_on_uses_the_last_outline_only_while_it_holds_enough_lines() -> None:
    whole = build_outline(recorded("big"))
    assert whole.covers(1002, 20_000) and not whole.covers(1003, 20_000)
    part = build_outline(recorded("big", keep=300))
    assert part.covers(0, 1_000) and not part.covers(len(part.lines) - 10, 20_000)
    # A walk cut short covers reading on while the lines after the offset fill the answer.
    after = len(part.render(RefTable(0), offset=10, max_chars=10**9))
    assert part.covers(10, after - 500) and not part.covers(10, after + 500)


def test_a_ref_reads_one_subtree() -> None:
    frames = recorded("login")
    table = RefTable(0)
    build_outline(frames).render(table, max_chars=20_000)
    form = table.key("e4", 0)
    assert build_outline(frames, under=form).render(table, max_chars=20_000) == (
        'form [ref=e4]\n  textbox "User" [ref=e5]\n  textbox "Password" [ref=e6]\n'
        '  checkbox "Remember me" unchecked [ref=e7]\n  button "Sign in" [ref=e8]'
    )
    with pytest.raises(LookupError):
        build_outline(frames, under=PageKey(None, form.frame_id, form.doc, 999_999))


def test_refs_stay_with_their_nodes_within_a_document_and_go_stale_after_navigation() -> None:
    refs = TabRefs()
    frames = recorded("login")
    first = build_outline(frames).render(refs.table(7, 1), max_chars=20_000)
    again = build_outline(frames).render(refs.table(7, 1), max_chars=20_000)
    assert first == again
    table = refs.table(7, 1)
    user = table.key("e5", 1)
    assert table.unresolved()[4] == user  # named when shown, looked up in the debugger afterwards
    with pytest.raises(RespondToModel, match="that element is no longer in the page"):
        refs.node(7, "e5", 1)
    table.resolved(user, NodeRef(None, 42, user.frame_id))
    assert refs.node(7, "e5", 1).backend_id == 42 and user not in table.unresolved()
    stale = r"ref e5 is stale \(the page has navigated since that snapshot\)\. Take a new snapshot"
    with pytest.raises(RespondToModel, match=stale):
        refs.node(7, "e5", 2)
    with pytest.raises(RespondToModel, match="no snapshot of this page gave it"):
        refs.node(7, "e99", 1)
    with pytest.raises(RespondToModel, match="no snapshot of this tab was taken"):
        refs.node(8, "e1", 1)


def test_find_answers_the_matching_lines_and_names_only_their_refs() -> None:
    page = build_outline(recorded("big"))
    refs = RefTable(0)
    found = Outline(page.find(re.compile(r"Add 19\b")))
    assert found.render(refs, max_chars=20_000) == 'button "Add 19" [ref=e1]'
    assert len(refs.unresolved()) == 1


def test_a_table_is_one_line_a_row_and_a_cell_of_one_element_is_that_element() -> None:
    assert outline_of("table") == (
        'heading "Orders" level=1 [ref=e1]\n'
        # The caption only repeated the table's name: said once.
        'table "Orders" [ref=e2]\n'
        '  columns: "Id" | "Customer" | "Status" | "Action"\n'
        '  row: "0875" | "Grace" | "Paid" | button "Refund" [ref=e3]\n'
        '  row: "0876" | link "Ada" [ref=e4] | "Paid" | button "Refund" [ref=e5]\n'
        '  row: "0877" | "Ada" | "" | button "Refund" [ref=e6] button "Cancel" [ref=e7]\n'
        '  row: "0878" | "Linus" | checkbox "Shipped" checked [ref=e8] | button "Refund" disabled [ref=e9]\n'
        "paragraph [ref=e10]: No refund yet"
    )


def test_the_refs_in_a_compact_row_are_the_elements_in_it_and_find_answers_the_whole_row() -> None:
    frames = recorded("table")
    table = RefTable(0)
    page = build_outline(frames)
    whole = page.render(table, max_chars=20_000)
    assert Outline(page.find(re.compile("0877"))).render(table, max_chars=20_000) == (
        'row: "0877" | "Ada" | "" | button "Refund" [ref=e6] button "Cancel" [ref=e7]'
    )
    # The same page again: the same refs (they stay with their nodes).
    assert build_outline(frames).render(table, max_chars=20_000) == whole
    # A ref inside a row reads that element.
    assert build_outline(frames, under=table.key("e9", 0)).render(table, max_chars=20_000) == (
        'button "Refund" disabled [ref=e9]'
    )


# ------------------------------------------------------------------ snapshot {since: "last"}


def test_changes_since_the_last_snapshot_are_added_changed_and_removed_lines_in_page_order() -> None:
    before = [
        'heading "Form" [ref=e1]',
        "paragraph [ref=e2]: Not clicked",
        'button "Go" [ref=e3]',
        "text: old",
    ]
    after = ['heading "Form" [ref=e1]', "paragraph [ref=e2]: Clicked 1 time(s)", 'button "Go" [ref=e3]',
             "paragraph [ref=e4]: Thanks"]  # fmt: skip
    header, lines = changes(before, after)
    assert header.startswith("Changes since your last snapshot of this page: 0 added, 2 changed, 0 removed")
    assert lines == ["~ paragraph [ref=e2]: Clicked 1 time(s)", "~ paragraph [ref=e4]: Thanks"]
    header, lines = changes(before, [*before[:2], *before[3:], "text: new"])
    assert "1 added, 0 changed, 1 removed" in header
    assert lines == ['- button "Go" [ref=e3]', "+ text: new"]


def test_no_change_since_the_last_snapshot_says_so() -> None:
    assert changes(["a", "b"], ["a", "b"]) == ("Nothing changed since your last snapshot of this page.", [])


# ------------------------------------------------------------------ find from the last outline


def _walked(epoch: int, versions: dict[tuple[str | None, str], tuple[str, int]]) -> Walked:
    state = TabState(7, url="https://a.test/", title="", epoch=epoch, dialog=None, sessions=())
    return Walked(state, [], contexts=dict.fromkeys(versions, 1), versions=versions)


def test_the_last_outline_holds_while_every_frame_answers_the_document_and_version_it_was_walked_at() -> None:
    walked = _walked(3, {(None, "top"): ("d1", 5), ("s1", "login"): ("d2", 0)})
    assert same_page(walked, 3, [["d1", 5], ["d2", 0]])
    assert not same_page(walked, 3, [["d1", 6], ["d2", 0]])  # something in the top frame changed
    assert not same_page(walked, 3, [["d1", 5], ["d9", 0]])  # the login frame shows a new document
    assert not same_page(walked, 3, [["d1", 5], None])  # the login frame's world is gone (it reloaded)
    assert not same_page(walked, 4, [["d1", 5], ["d2", 0]])  # the tab navigated
