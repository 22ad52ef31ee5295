"""An agent's input never lands in a frame it was not asked about (contract §8.2).

Acting inside a child frame is asked for the frame's site, which an agent names by a ref from a snapshot (the
gateway knows each ref's frame). Input that would reach a frame's document another way is refused for agents:
an element named by selector that is itself a frame (a click on it lands inside), and keys pressed while
the focus is inside a frame (checked before each key, in Tabgate's isolated world: the page can neither hide
where its focus is nor move it there between the check and the key unseen by the next check). The person's
own calls are not asked, so they may.
"""

from __future__ import annotations

from core.browser.context import PageContext
from core.browser.elements import Element, locate
from core.browser.executor import Command, TabState
from core.browser.input_guard import InputGuard, top_world
from core.calls.errors import RespondToModel

USE_REFS = (
    "take a snapshot (browser_page action=snapshot) and act on the elements inside the frame by their refs, "
    "so the person is asked for the frame's site"
)
# Throws while the focus is inside a child frame (its owner element is the top document's active element).
_FOCUS_OUTSIDE_FRAMES = """(() => { const e = document.activeElement;
  if (e && ["IFRAME", "FRAME", "OBJECT", "EMBED"].includes(e.tagName)) throw new Error("in a frame"); })()"""


async def agent_locate(
    ctx: PageContext, tab_id: int | None, *, ref: str | None, selector: str | None
) -> tuple[TabState, Element]:
    """The element, as `locate` finds it; for an agent, never a frame named by selector."""
    state, element = await locate(ctx, tab_id, ref=ref, selector=selector)
    if element.shows_frame and ctx.by_agent:
        raise RespondToModel(f"{element.label} is a frame showing another page: {USE_REFS}")
    return state, element


def focus_outside_frames() -> InputGuard:
    """For an agent's keys without an element: they go where the focus is, which must not be a frame."""
    check = Command(
        "Runtime.evaluate",
        {"expression": _FOCUS_OUTSIDE_FRAMES, "returnByValue": True},
        fill=(("contextId", 1, "executionContextId"),),
        ends_if_thrown=True,
    )
    moved = f"the keyboard focus is inside a frame: press with a ref instead; {USE_REFS}"
    return InputGuard(
        top_world(0, oopifs_only=False), (check,), moved, "Tabgate could not read where the focus is"
    )
