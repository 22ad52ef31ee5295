"""Mouse input: the debugger's mouse events; a click as one list (scroll, box, move, and each press and
release at the box's middle); a drag from one element onto another. Each press and a drag's drop is checked
first to land on its element (core/browser/input_guard.py); the answer says how far input got when it
stopped short."""

from __future__ import annotations

from typing import Any

from core.browser.context import PageContext
from core.browser.elements import Element, at_center, center
from core.browser.executor import LEFT_PAGE, Answer, Command, TabState
from core.browser.input_guard import pointer_guard
from core.calls.errors import RespondToModel

BUTTON_BITS = {"left": 1, "right": 2, "middle": 4}


def mouse(kind: str, x: float, y: float, session: str | None, **extra: Any) -> Command:
    return Command("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra}, session)


def _clicks(session: str | None, *, button: str, count: int, modifiers: int) -> list[Command]:
    """The move and each press and release, aimed at the box's middle by the list."""
    commands = [mouse("mouseMoved", 0, 0, session, modifiers=modifiers)]
    for n in range(1, count + 1):
        common = {"button": button, "clickCount": n, "modifiers": modifiers}
        commands += [
            mouse("mousePressed", 0, 0, session, buttons=BUTTON_BITS[button], **common),
            mouse("mouseReleased", 0, 0, session, buttons=0, **common),
        ]
    return commands


def _how_far(sent: list[Command], count: int) -> str:
    """How far a click whose list stopped got, by the presses and releases it sent."""
    kinds = [command.params.get("type") for command in sent]
    done, pressed = kinds.count("mouseReleased"), kinds.count("mousePressed") > kinds.count("mouseReleased")
    if pressed:
        return "pressed but not released"
    return f"clicked {done} of {count} times" if done else "not clicked"


async def click_at(
    ctx: PageContext,
    state: TabState,
    element: Element,
    *,
    button: str = "left",
    count: int = 1,
    modifiers: int = 0,
) -> Answer:
    """Clicks `element` at its box's middle: one list, one round trip (the executor aims the input at the box
    it read). A click cut short (the tab left its document, or a frame of another page lay over the element)
    is the error, saying how far it got."""
    guard = pointer_guard(element, at=2, box=1)
    inputs = [
        *guard.setup,
        *guard.guarding(_clicks(element.session, button=button, count=count, modifiers=modifiers)),
    ]
    answer, _ = await at_center(ctx, state, element, inputs)
    why = f"{LEFT_PAGE} before the click was done" if answer.left else guard.stopped(inputs, answer.results)
    if why is not None:
        raise RespondToModel(f"{element.label} was {_how_far(inputs[: len(answer.results)], count)}: {why}")
    return answer.checked(f"click {element.label}")


async def drag_onto(ctx: PageContext, state: TabState, source: Element, target: Element) -> str:
    """Presses on `source`, moves with the button held onto `target` and drops there: an HTML drag (Chrome
    hands over its data, which is dropped on the target) or a mouse drag. Nothing is pressed where a frame of
    another page would get it, and nothing dropped: the drag is then cancelled where it began."""
    if source.session != target.session:
        raise RespondToModel(
            f"{source.label} and {target.label} are in different frames; drag works within one frame"
        )
    (x1, y1), (x2, y2) = (
        [round(v) for v in await center(ctx, state, source)],
        [round(v) for v in await center(ctx, state, target)],
    )
    s = source.session
    pressing = pointer_guard(source, at=1, point=(x1, y1), what="press")
    start = [
        Command("Input.setInterceptDrags", {"enabled": True}, s),
        *pressing.setup,
        *pressing.guarding(
            [
                mouse("mouseMoved", x1, y1, s),
                mouse("mousePressed", x1, y1, s, button="left", buttons=1, clickCount=1),
                # Moves with the button held say so (button and buttons), or Chrome starts no drag.
                mouse("mouseMoved", (x1 + x2) / 2, (y1 + y2) / 2, s, button="left", buttons=1),
                mouse("mouseMoved", x2, y2, s, button="left", buttons=1),
            ]
        ),
    ]
    answer = await ctx.cdp.run(state.tab_id, start)
    not_dropped = RespondToModel(f"{source.label} was not dropped: {LEFT_PAGE} during the drag")
    if answer.left:
        raise not_dropped
    if why := pressing.stopped(start, answer.results):
        await ctx.cdp.run(state.tab_id, [Command("Input.setInterceptDrags", {"enabled": False}, s)])
        raise RespondToModel(f"{source.label} was not dragged: {why}")
    answer.checked("drag")
    data = answer.drag
    if data is None:  # the interception event may trail the last move
        data = (await ctx.cdp.run(state.tab_id, [Command("Runtime.evaluate", {"expression": "0"})])).drag
    dropping = pointer_guard(target, at=0, point=(x2, y2), what="drop", over=target.label)
    drop = [
        Command("Input.dispatchDragEvent", {"type": kind, "x": x2, "y": y2, "data": data}, s)
        for kind in (("dragEnter", "dragOver", "drop") if data is not None else ())
    ]  # an HTML5 drag: Chrome handed us its data to drop
    finish = [
        *dropping.setup,
        *dropping.check,
        *drop,
        mouse("mouseReleased", x2, y2, s, button="left", buttons=0, clickCount=1),
        Command("Input.setInterceptDrags", {"enabled": False}, s),
    ]
    dropped = await ctx.cdp.run(state.tab_id, finish, epoch=answer.state.epoch)
    if not dropped.results or dropped.left:
        raise not_dropped
    if why := dropping.stopped(finish, dropped.results):
        await ctx.cdp.run(state.tab_id, _cancelled(data, x1, y1, s))
        raise RespondToModel(f"{source.label} was not dropped: {why}")
    dropped.checked("drop")
    how = "an HTML drag and drop" if data is not None else "a mouse drag (the page started no HTML drag)"
    return f"Dragged {source.label} onto {target.label} ({how})."


def _cancelled(data: Any, x: int, y: int, session: str | None) -> list[Command]:
    """A drag given up: cancelled, and the button released where it was pressed (on the source)."""
    cancel = [
        Command("Input.dispatchDragEvent", {"type": "dragCancel", "x": x, "y": y, "data": data}, session)
    ]
    return [
        *(cancel if data is not None else []),
        mouse("mouseMoved", x, y, session, button="left", buttons=1),
        mouse("mouseReleased", x, y, session, button="left", buttons=0, clickCount=1),
        Command("Input.setInterceptDrags", {"enabled": False}, session),
    ]
