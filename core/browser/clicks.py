"""Mouse input: the debugger's mouse events, and a click as one list (scroll, box, move, and each press and
release at the box's middle), checked before each press that it lands on the element (core/browser/
input_guard.py); the answer says how far a click got when it stopped short."""

from __future__ import annotations

from typing import Any

from core.browser.context import PageContext
from core.browser.elements import Element, at_center
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
    why = guard.stopped(inputs, answer.results) or (
        f"{LEFT_PAGE} before the click was done" if answer.left else None
    )
    if why is not None:
        raise RespondToModel(f"{element.label} was {_how_far(inputs[: len(answer.results)], count)}: {why}")
    return answer.checked(f"click {element.label}")
