"""An agent's input never lands in a frame it was not asked about (contract §8.2).

Acting inside a child frame is asked for the frame's site, which an agent names by a ref from a snapshot (the
gateway knows each ref's frame). Input that would reach a frame's document another way is refused for agents:
an element named by selector that is itself a frame (a click on it lands inside), and keys pressed while
the focus is inside a frame. The person's own calls are not asked, so they may.
"""

from __future__ import annotations

from core.browser.context import PageContext
from core.browser.elements import Element, locate
from core.browser.executor import Command, TabState
from core.calls.errors import RespondToModel

USE_REFS = (
    "take a snapshot (browser_page action=snapshot) and act on the elements inside the frame by their refs, "
    "so the person is asked for the frame's site"
)
# Whether the focus is inside a child frame (its owner element is the top document's active element).
_FOCUS_IN_FRAME = """(() => { const e = document.activeElement;
  return !!e && ["IFRAME", "FRAME", "OBJECT", "EMBED"].includes(e.tagName); })()"""


async def agent_locate(
    ctx: PageContext, tab_id: int | None, *, ref: str | None, selector: str | None
) -> tuple[TabState, Element]:
    """The element, as `locate` finds it; for an agent, never a frame named by selector."""
    state, element = await locate(ctx, tab_id, ref=ref, selector=selector)
    if element.shows_frame and ctx.by_agent:
        raise RespondToModel(f"{element.label} is a frame showing another page: {USE_REFS}")
    return state, element


async def focus_not_in_frame(ctx: PageContext, tab_id: int | None) -> None:
    """For an agent's keys without an element: they go where the focus is, which must not be a frame."""
    expression = {"expression": _FOCUS_IN_FRAME, "returnByValue": True}
    answer = await ctx.cdp.run(tab_id, [Command("Runtime.evaluate", expression)])
    if answer.result(0, "press").get("result", {}).get("value") is True:
        raise RespondToModel(f"the keyboard focus is inside a frame: press with a ref instead; {USE_REFS}")
