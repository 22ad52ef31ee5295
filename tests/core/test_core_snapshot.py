"""The outline from accessibility trees Chrome gave for the e2e fixture pages (tests/support/record_ax.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.browser.refs import NodeRef, RefTable, TabRefs
from core.browser.snapshot import FrameTree, build_outline
from core.errors import RespondToModel

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ax"


def recorded(name: str, **withheld: str) -> list[FrameTree]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return [
        FrameTree(f["frameId"], f["parentId"], f["session"], f["url"], f["owner"], f["nodes"],
                  withheld=withheld.get(f["url"].split("/")[2].replace(".", "_").replace(":", "_")))
        for f in data["frames"]
    ]  # fmt: skip


def outline_of(name: str, **withheld: str) -> str:
    return build_outline(recorded(name, **withheld), RefTable(0)).render(max_chars=20_000)


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
    text = outline_of("login", **{"127_0_0_1_8002": "a frame from http://127.0.0.1:8002 (no access)"})
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
    assert '    option "Red" selected [ref=e8]' in text


def test_structure_only_nodes_give_their_children_to_the_parent() -> None:
    # hover.html: <li class=menu><span>Products</span>…: the span is generic, its text joins the list item.
    assert outline_of("hover") == (
        "navigation [ref=e1]\n  list [ref=e2]\n    listitem [ref=e3]: Products\n"
        "paragraph [ref=e4]: Not hovered"
    )


def test_a_big_page_is_cut_within_the_budget_and_reads_on_from_the_offset() -> None:
    page = build_outline(recorded("big"), RefTable(0))
    assert len(page.lines) == 1002  # 200 products × 5 lines, the heading and main
    first = page.render(max_chars=2000)
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
        text = page.render(offset=offset, max_chars=2000)
        assert len(text) <= 2000
        lines = text.splitlines()
        if lines[-1].startswith("[cut: "):
            lines = lines[:-1]
        pages.append(lines)
        offset += len(lines)
    everything = [line for chunk in pages for line in chunk]
    assert everything == page.render(max_chars=10_000_000).splitlines()


def test_a_ref_reads_one_subtree() -> None:
    frames = recorded("login")
    table = RefTable(0)
    build_outline(frames, table)
    form = table.node("e4", 0)
    assert build_outline(frames, table, under=form).render(max_chars=20_000) == (
        'form [ref=e4]\n  textbox "User" [ref=e5]\n  textbox "Password" [ref=e6]\n'
        '  checkbox "Remember me" unchecked [ref=e7]\n  button "Sign in" [ref=e8]'
    )
    with pytest.raises(LookupError):
        build_outline(frames, table, under=NodeRef(None, 999_999, form.frame_id))


def test_refs_stay_with_their_nodes_within_a_document_and_go_stale_after_navigation() -> None:
    refs = TabRefs()
    frames = recorded("login")
    first = build_outline(frames, refs.table(7, 1)).render(max_chars=20_000)
    again = build_outline(frames, refs.table(7, 1)).render(max_chars=20_000)
    assert first == again
    user = next(n for f in frames for n in f.nodes if n.get("name", {}).get("value") == "User")
    assert refs.node(7, "e5", 1).backend_id == user["backendDOMNodeId"]
    stale = r"ref e5 is stale \(the page has navigated since that snapshot\)\. Take a new snapshot"
    with pytest.raises(RespondToModel, match=stale):
        refs.node(7, "e5", 2)
    with pytest.raises(RespondToModel, match="no snapshot of this page gave it"):
        refs.node(7, "e99", 1)
    with pytest.raises(RespondToModel, match="no snapshot of this tab was taken"):
        refs.node(8, "e1", 1)


def test_find_answers_the_matching_lines() -> None:
    page = build_outline(recorded("big"), RefTable(0))
    assert page.find(re.compile(r"Add 19\b")) == ['button "Add 19" [ref=e101]']


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
    page = build_outline(frames, table)
    nodes = frames[0].nodes
    both = next(n["nodeId"] for n in nodes if n.get("name", {}).get("value") == "Refund Cancel")
    refund = next(n for n in nodes if n["role"]["value"] == "button" and n["parentId"] == both
                  and n["name"]["value"] == "Refund")  # fmt: skip
    assert table.node("e6", 0).backend_id == refund["backendDOMNodeId"]
    assert page.find(re.compile("0877")) == [
        'row: "0877" | "Ada" | "" | button "Refund" [ref=e6] button "Cancel" [ref=e7]'
    ]
    # The same page again: the same refs (they stay with their nodes).
    assert build_outline(frames, table).render(max_chars=20_000) == page.render(max_chars=20_000)
    # A ref inside a row reads that element.
    assert build_outline(frames, table, under=table.node("e9", 0)).render(max_chars=20_000) == (
        'button "Refund" disabled [ref=e9]'
    )
