"""Input goes only where it was aimed (core/browser/input_guard.py, contract §8.2): with a frame of another
site in the tab, each key goes out only after a check in Tabgate's isolated world finds the focus still there,
and each press of a click only after one finds the element under its point, so a page that moves the focus
into that frame, or lays the frame over its button, gets none of that input into it. Over the recorded page of
test_core_browser_tools (its executor side, as debugger.js runs lists)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.browser import dom
from core.browser.context import PageContext, refs_of
from core.browser.dom_args import BrowserDomArgs
from core.browser.executor import Cdp
from core.calls.errors import RespondToModel
from tests.core.test_core_browser_tools import RecordedPage, run, snapshotted

pytestmark = pytest.mark.unit

HOLDS = "const held"  # a word of the element's focus check


def checks(page: RecordedPage) -> list[dict[str, object]]:
    return [c for c in page.sent if HOLDS in str(c["params"].get("functionDeclaration", ""))]


def reacts(page: RecordedPage, to: Callable[[dict[str, Any]], bool], then: str) -> None:
    """From the first command whose params match `to`, the page's flag `then` is set (its script did it)."""
    original = page._answer

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if to(params):
            setattr(page, then, True)
        return original(method, params)

    page._answer = answer  # type: ignore[method-assign]


def typing_page(*, oopif: bool) -> RecordedPage:
    page = RecordedPage()
    page.values = {"setSelectionRange": True}
    page.oopif = oopif
    return page


async def test_with_another_sites_frame_in_the_tab_typing_stops_once_the_page_moves_the_focus() -> None:
    page = typing_page(oopif=True)
    page.focus_moves_on = ("keyDown", "c")  # its keydown handler focuses the frame
    svc = await snapshotted(page)
    assert await run(svc, "browser_dom", action="type", tabId=5, ref="e5", text="abcde") == (
        True,
        "Typed 3 of 5 character(s) into e5; the rest was not typed: the page moved the keyboard focus away "
        "from the element.",
    )
    assert [p["key"] for p in page.inputs()] == ["a", "a", "b", "b", "c", "c"]
    assert len(checks(page)) == 4  # before a, b, c and d, which it stopped


async def test_each_check_reads_the_focus_in_tabgates_world_where_the_page_cannot_redefine_it() -> None:
    """The field found by ref is looked up once more in the isolated world of its frame, and every check
    calls on that object, before its key goes down."""
    page = typing_page(oopif=True)
    svc = await snapshotted(page)
    await run(svc, "browser_dom", action="type", tabId=5, ref="e5", text="ab")
    world = next(c for c in page.sent if c["method"] == "Page.createIsolatedWorld")
    looked_up = next(
        c for c in page.sent if c["method"] == "DOM.resolveNode" and "executionContextId" in c["params"]
    )
    assert world["params"]["worldName"] == "tabgate"
    frame = (
        looked_up["params"]["backendNodeId"] // 1000 - 1
    )  # the ref's frame (RecordedPage numbers nodes so)
    assert world["params"]["frameId"] == page.frames[frame]["frameId"]  # e5 is in the login's frame
    assert looked_up["params"]["executionContextId"] == frame + 1  # the world that command made
    assert {c["params"]["objectId"] for c in checks(page)} == {f"node-{looked_up['params']['backendNodeId']}"}
    order = [
        "check" if HOLDS in str(c["params"].get("functionDeclaration", "")) else c["params"].get("type")
        for c in page.sent
        if c["method"] == "Input.dispatchKeyEvent" or HOLDS in str(c["params"].get("functionDeclaration", ""))
    ]
    assert order == ["check", "keyDown", "keyUp", "check", "keyDown", "keyUp"]


async def test_a_field_found_by_selector_is_checked_as_the_same_node_in_tabgates_world() -> None:
    page = typing_page(oopif=True)
    page.focus_moves_on = ("keyDown", "a")
    svc = await snapshotted(page)
    page.values["querySelector"] = None  # found: the recorded page answers the query's object below
    page.answers["Runtime.evaluate"] = {"result": {"objectId": "node-0-5"}}
    success, text = await run(svc, "browser_dom", action="type", tabId=5, selector="#name", text="ab")
    assert (success, text.split("; ")[-1]) == (
        True,
        "the rest was not typed: the page moved the keyboard focus away from the element.",
    )
    found = [c["method"] for c in page.sent if c["method"].startswith(("DOM.", "Page."))]
    assert found == ["DOM.describeNode", "Page.getFrameTree", "Page.createIsolatedWorld", "DOM.resolveNode"]
    assert [p["key"] for p in page.inputs()] == ["a", "a"]


async def test_without_such_a_frame_no_check_is_sent_and_the_keys_stay_in_the_pages_own_document() -> None:
    """No other site can take the keys then: typing costs what it did (one command list, nothing added)."""
    page = typing_page(oopif=False)
    page.focus_moves_on = ("keyDown", "a")
    svc = await snapshotted(page)
    success, text = await run(svc, "browser_dom", action="type", tabId=5, ref="e5", text="ab")
    assert success and text.startswith("Typed 2 character(s) into e5")
    assert checks(page) == [] and "Page.createIsolatedWorld" not in page.methods()


async def test_a_frame_of_another_site_appearing_during_the_typing_stops_it() -> None:
    page = typing_page(oopif=False)
    svc = await snapshotted(page)
    # The page added an iframe of another site, which Chrome runs apart.
    reacts(page, lambda params: (params.get("type"), params.get("key")) == ("keyUp", "b"), "oopif")
    assert await run(svc, "browser_dom", action="type", tabId=5, ref="e5", text="abc") == (
        True,
        "Typed 2 of 3 character(s) into e5; the rest was not typed: Tabgate could not check that the element "
        "still had the keyboard focus (a frame of another site appeared in the page, or the element's "
        "document went away).",
    )
    assert [p["key"] for p in page.inputs()] == ["a", "a", "b", "b"]


async def test_a_key_pressed_on_an_element_whose_focus_the_page_moved_is_not_pressed() -> None:
    page = typing_page(oopif=True)
    svc = await snapshotted(page)
    page.focus_moved = True  # its focus handler sent the focus into the frame
    assert await run(svc, "browser_dom", action="press", tabId=5, ref="e5", key="Enter") == (
        False,
        "did not press Enter: the page moved the keyboard focus away from the element",
    )
    assert page.inputs() == []


def agents_page_context(page: RecordedPage) -> PageContext:
    return PageContext(Cdp(page, 5_000), refs_of(page), None, (), None, caller="agent-1")


@pytest.mark.parametrize("in_frame", [True, False])
async def test_an_agents_keys_without_an_element_go_out_only_while_the_focus_is_outside_every_frame(
    in_frame: bool,
) -> None:
    """Checked in the top document's isolated world before each key, not once before the chord."""
    page = RecordedPage()
    page.focus_in_frame = in_frame
    ctx = agents_page_context(page)
    args = BrowserDomArgs(action="press", tabId=5, key="Control+a")
    if in_frame:
        with pytest.raises(
            RespondToModel, match=r"^did not press Control\+a: the keyboard focus is inside a frame"
        ):
            await dom.press(ctx, args)
        assert page.inputs() == []
        return
    assert await dom.press(ctx, args) == "Pressed Control+a."
    evaluated = [c for c in page.sent if c["method"] == "Runtime.evaluate"]
    assert [c["params"]["contextId"] for c in evaluated] == [1, 1]  # before Control and before a
    assert [p["type"] for p in page.inputs()] == ["rawKeyDown", "rawKeyDown", "keyUp", "keyUp"]


# -- clicks: what is under the point


def under_point(page: RecordedPage) -> list[dict[str, object]]:
    return [c for c in page.sent if '"covered"' in str(c["params"].get("functionDeclaration", ""))]


async def test_a_click_under_a_frame_of_another_page_is_not_sent() -> None:
    """A's page lays B's frame over its button: the press would land in B, so nothing is pressed."""
    page = RecordedPage()
    page.oopif = page.covered = True
    svc = await snapshotted(page)
    assert await run(svc, "browser_dom", action="click", tabId=5, ref="e8") == (
        False,
        "e8 was not clicked: a frame of another page lies over it there and would get the click",
    )
    assert [p["type"] for p in page.inputs()] == ["mouseMoved"]


async def test_the_node_under_the_clicks_point_is_looked_up_beside_the_element_in_tabgates_world() -> None:
    """After the move (a page may uncover or cover on it), at the point the press goes to."""
    page = RecordedPage()
    page.oopif = True
    svc = await snapshotted(page)
    assert await run(svc, "browser_dom", action="click", tabId=5, ref="e8") == (True, "Clicked e8.")
    hit = next(c for c in page.sent if c["method"] == "DOM.getNodeForLocation")
    move = page.inputs()[0]
    assert (hit["params"]["x"], hit["params"]["y"]) == (move["x"], move["y"]) == (20, 30)
    [checked] = under_point(page)
    looked_up = [c for c in page.sent if c["method"] == "DOM.resolveNode"]
    assert [c["params"]["backendNodeId"] for c in looked_up][-1] == 1_005  # the node under the point
    assert len({c["params"]["executionContextId"] for c in looked_up}) == 1  # in the element's world
    assert checked["params"]["arguments"] == [{"objectId": "node-1005"}]
    assert checked["params"]["objectId"] == f"node-{looked_up[0]['params']['backendNodeId']}"  # the element
    order = [c["params"].get("type") or c["method"] for c in page.sent[page.sent.index(hit) - 1 :]]
    assert order == [
        "mouseMoved", "DOM.getNodeForLocation", "DOM.resolveNode", "Runtime.callFunctionOn",
        "mousePressed", "mouseReleased",
    ]  # fmt: skip


async def test_a_double_click_whose_second_press_a_frame_would_get_says_how_far_it_got() -> None:
    page = RecordedPage()
    page.oopif = True
    svc = await snapshotted(page)
    reacts(page, lambda params: params.get("type") == "mouseReleased", "covered")
    assert await run(svc, "browser_dom", action="click", tabId=5, ref="e8", clickCount=2) == (
        False,
        "e8 was clicked 1 of 2 times: a frame of another page lies over it there and would get the click",
    )


async def test_without_such_a_frame_a_click_is_the_move_press_and_release_alone() -> None:
    page = RecordedPage()
    svc = await snapshotted(page)
    assert await run(svc, "browser_dom", action="click", tabId=5, ref="e8") == (True, "Clicked e8.")
    assert page.methods() == [
        "DOM.scrollIntoViewIfNeeded", "DOM.getContentQuads", *["Input.dispatchMouseEvent"] * 3,
    ]  # fmt: skip


async def test_a_drag_presses_nothing_where_a_frame_of_another_page_lies_over_its_source() -> None:
    page = RecordedPage()
    page.oopif = page.covered = True
    svc = await snapshotted(page)
    assert await run(svc, "browser_dom", action="drag", tabId=5, ref="e8", toRef="e5") == (
        False,
        "e8 was not dragged: a frame of another page lies over it there and would get the press",
    )
    assert [p["type"] for p in page.inputs() if "type" in p] == ["mouseMoved"]
    assert page.inputs()[-1] == {"enabled": False}  # Chrome's drags are its own again


async def test_a_drag_drops_nothing_on_a_frame_laid_over_its_target_and_gives_up_where_it_began() -> None:
    page = RecordedPage()
    page.oopif = True
    svc = await snapshotted(page)
    reacts(page, lambda params: params.get("type") == "mouseMoved" and params.get("buttons") == 1, "covered")
    assert await run(svc, "browser_dom", action="drag", tabId=5, ref="e8", toRef="e5") == (
        False,
        "e8 was not dropped: a frame of another page lies over e5 there and would get the drop",
    )
    # The drop's release never went out; the drag was given up: released again where it was pressed.
    kinds = [p.get("type", p.get("enabled")) for p in page.inputs()]
    assert kinds == [
        True, "mouseMoved", "mousePressed", "mouseMoved", "mouseMoved",  # the press on e8 and the moves
        "mouseMoved", "mouseReleased", False,  # given up
    ]  # fmt: skip
    assert page.inputs()[-2]["x"] == page.inputs()[2]["x"] and page.inputs()[-2]["y"] == page.inputs()[2]["y"]
