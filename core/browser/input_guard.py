"""Input goes only where it was aimed (contract §8.2).

A page can move where input lands while Tabgate acts: the keyboard focus (in its key handlers, on a timer), or
what lies under the pointer (a frame laid over the element, shown on the mouse's move). Into a frame of
another site, that input would act in a document whose site nobody was asked about. So before each key goes
down (or text goes in) and each button goes down, a check run in Tabgate's isolated world (what it reads, the
page cannot redefine) finds the input still going where it was aimed; the list stops at the first check that
fails: for keys, the element holds its document's focus; for a click, what is under the point is the element
(or inside it), or at least no frame's owner.

Only a frame in another process (another site's document) can take input away from the element's site, so
the checks and the commands that ready them run only while the tab has such a frame (`oopifs_only`): acting
on a page without one costs no more. Such a frame appearing after the list began finds the check unready, and
the list stops there too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.browser.elements import Element
from core.browser.executor import Command, Outcome
from core.browser.walker import WORLD

# The element holds its document's (or shadow root's) focus; a contenteditable's editing host may hold it.
_HOLDS_FOCUS = """function () {
  const active = this.getRootNode().activeElement;
  const held = active === this || (this.isContentEditable && active && active.contains(this));
  if (!held) throw new Error("moved");
}"""
# What is under the point (`hit`) is the element or inside it (through shadow roots), or no frame's owner.
_UNDER_POINT = """function (hit) {
  for (let node = hit; node; node = node.parentNode || node.host) if (node === this) return;
  if (["IFRAME", "FRAME", "OBJECT", "EMBED"].includes(hit.tagName)) throw new Error("covered");
}"""
FOCUS_MOVED = "the page moved the keyboard focus away from the element"
FOCUS_UNSURE = (
    "Tabgate could not check that the element still had the keyboard focus (a frame of another site appeared "
    "in the page, or the element's document went away)"
)
COVER_UNSURE = "Tabgate could not tell whether a frame of another page lies over it"
_STARTS = frozenset({"keyDown", "rawKeyDown", "mousePressed"})


@dataclass(frozen=True, slots=True)
class InputGuard:
    """`setup` readies the check (placed once, before the first input); `check` goes before each input that
    starts an action, its last command throwing when the input would land elsewhere (`moved` says so;
    `unsure`: the check could not run)."""

    setup: tuple[Command, ...]
    check: tuple[Command, ...]
    moved: str
    unsure: str

    def guarding(self, inputs: list[Command]) -> list[Command]:
        """`inputs` with the check before each key or button that goes down (or text that goes in)."""
        guarded: list[Command] = []
        for command in inputs:
            if command.method == "Input.insertText" or command.params.get("type") in _STARTS:
                guarded += self.check
            guarded.append(command)
        return guarded

    def stopped(self, commands: Sequence[Command], results: Sequence[Outcome]) -> str | None:
        """Why the list stopped, when a check stopped it (None: it did not stop at one)."""
        if not results or len(results) == len(commands):
            return None
        last = commands[len(results) - 1]
        if not any(last is command for command in self.check):
            return None
        thrown = isinstance(results[-1], dict) and "exceptionDetails" in results[-1]
        return self.moved if thrown and last is self.check[-1] else self.unsure


def top_world(at: int, *, oopifs_only: bool) -> tuple[Command, Command]:
    """The commands (at `at` and the next) that answer the top document's isolated world, as
    `executionContextId` of the second."""
    return (
        Command("Page.getFrameTree", {}, oopifs_only=oopifs_only),
        Command(
            "Page.createIsolatedWorld",
            {"worldName": WORLD},
            fill=(("frameId", at, "frameTree.frame.id"),),
            oopifs_only=oopifs_only,
        ),
    )


def _element_world(element: Element | None, at: int, found_at: int) -> tuple[Command, ...]:
    """From index `at`: commands whose last answers `element` (None: the object command `found_at` of the
    list answered, a selector's match in the top document) in its frame's isolated world, the one before it
    that world."""
    if element is not None and element.is_ref:
        world = {"worldName": WORLD, "frameId": element.frame_id}
        return (
            Command("Page.createIsolatedWorld", world, element.session, oopifs_only=True),
            Command(
                "DOM.resolveNode",
                element.params,
                element.session,
                fill=(("executionContextId", at, "executionContextId"),),
                oopifs_only=True,
            ),
        )
    # An object in the top document's page world: the same node, looked up in Tabgate's world.
    params = {} if element is None else element.params
    return (
        Command(
            "DOM.describeNode", params, object_of=found_at if element is None else None, oopifs_only=True
        ),
        *top_world(at + 1, oopifs_only=True),
        Command(
            "DOM.resolveNode",
            {},
            fill=(
                ("backendNodeId", at, "node.backendNodeId"),
                ("executionContextId", at + 2, "executionContextId"),
            ),
            oopifs_only=True,
        ),
    )


def keys_guard(element: Element | None, *, at: int, found_at: int = 0) -> InputGuard:
    """The guard of keys aimed at `element` (see `_element_world`), its set-up starting at index `at`."""
    setup = _element_world(element, at, found_at)
    holds = Command(
        "Runtime.callFunctionOn",
        {"functionDeclaration": _HOLDS_FOCUS, "returnByValue": True},
        None if element is None else element.session,
        object_of=at + len(setup) - 1,
        ends_if_thrown=True,
        oopifs_only=True,
    )
    return InputGuard(setup, (holds,), FOCUS_MOVED, FOCUS_UNSURE)


def pointer_guard(
    element: Element,
    *,
    at: int,
    box: int | None = None,
    point: tuple[int, int] = (0, 0),
    what: str = "click",
    over: str = "it",
) -> InputGuard:
    """The guard of the `what` (a click, a drag's press or its drop) at `point`, or at the middle of
    `element`'s box read by command `box`, set up from `at`: the node under that point, looked up in the
    element's world, must be the element, inside it or no frame (`over` names the element in the words)."""
    setup = _element_world(element, at, 0)
    session, place = element.session, {"x": point[0], "y": point[1]}
    check = (
        Command("DOM.getNodeForLocation", place, session, center_of=box, oopifs_only=True),
        Command(
            "DOM.resolveNode",
            {},
            session,
            fill=(
                ("backendNodeId", -1, "backendNodeId"),
                ("executionContextId", at + len(setup) - 2, "executionContextId"),
            ),
            oopifs_only=True,
        ),
        Command(
            "Runtime.callFunctionOn",
            {"functionDeclaration": _UNDER_POINT, "arguments": [{"objectId": None}], "returnByValue": True},
            session,
            object_of=at + len(setup) - 1,
            fill=(("arguments.0.objectId", -1, "object.objectId"),),
            ends_if_thrown=True,
            oopifs_only=True,
        ),
    )
    covered = f"a frame of another page lies over {over} there and would get the {what}"
    return InputGuard(setup, check, covered, COVER_UNSURE)
