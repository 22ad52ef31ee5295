"""Which site each child frame shows, and which frame a ref lands in (contract §8.2: acting inside a frame is
asked for the frame's site)."""

from __future__ import annotations

import pytest

from core.browser.page_walk import _collect, _Frame, _frame_sites
from core.browser.refs import FrameSite, PageKey, RefTable, TabRefs


def frames(tree: dict[str, object], oopif: dict[str, str], own: dict[str, dict[str, object]]) -> list[_Frame]:
    """The frames as the walk collects them: the top tree, then each out-of-process frame's own tree."""
    out: dict[str, _Frame] = {}
    _collect(tree, None, None, out, oopif)
    for session, subtree in own.items():
        _collect(subtree, None, session, out, oopif)
    return list(out.values())


def frame(id: str, url: str, origin: str = "", *children: dict[str, object]) -> dict[str, object]:
    return {"frame": {"id": id, "url": url, "securityOrigin": origin}, "childFrames": list(children)}


pytestmark = pytest.mark.unit

A, B = "https://a.example", "https://b.example"


def test_each_child_frame_has_its_own_site_and_one_its_parent_wrote_is_checked_on_that_parent() -> None:
    top = frame(
        "top",
        f"{A}/shop",
        A,
        frame("pay", "", ""),  # out of process: its address comes from its own session
        frame("srcdoc", "about:srcdoc", "null"),  # a sandboxed frame A wrote
        frame("blank", "about:blank", A),
    )
    own = {"S1": frame("pay", f"{B}/widget", B, frame("inner", "about:srcdoc", "null"))}
    sites = _frame_sites(frames(top, {"pay": "S1"}, own))
    assert sites == {
        ("S1", "pay"): FrameSite(B, "S1", "pay"),
        ("S1", "inner"): FrameSite(B, "S1", "pay"),
        (None, "srcdoc"): FrameSite(A, None, "top"),
        (None, "blank"): FrameSite(A, None, "blank"),
    }


def test_a_frame_whose_address_is_unknown_or_not_the_web_has_no_site() -> None:
    top = frame("top", f"{A}/", A, frame("gone", "", ""), frame("ext", "chrome-extension://x/page.html", ""))
    sites = _frame_sites(frames(top, {}, {}))
    assert sites[(None, "gone")].site is None and sites[(None, "ext")].site is None


def test_a_ref_knows_the_frame_it_is_in_and_an_iframes_ref_the_frame_it_shows() -> None:
    refs = TabRefs()
    table: RefTable = refs.table(7, 0)
    on_page = table.ref_for(PageKey(None, "top", "d1", 1))
    iframe = table.ref_for(PageKey(None, "top", "d1", 2))
    inside = table.ref_for(PageKey("S1", "pay", "d2", 1))
    pay = FrameSite(B, "S1", "pay")
    table.saw_frames({("S1", "pay"): pay}, {PageKey(None, "top", "d1", 2): pay})
    assert refs.frame_of(7, on_page) is None
    assert refs.frame_of(7, iframe) == pay  # a click on the <iframe> lands in B's document
    assert refs.frame_of(7, inside) == pay
    assert refs.frame_of(7, "e99") is None and refs.frame_of(8, inside) is None
