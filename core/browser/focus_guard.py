"""Keys go only where they were aimed (contract §8.2).

A page can move the keyboard focus while Tabgate types or presses (in its key handlers, on a timer): into a
frame of another site, whose document would then get the rest of the keys although nobody was asked about
its site. So before each key goes out, a check run in Tabgate's isolated world (what it reads, the page cannot
redefine) finds the focus still where the keys are aimed; the list stops at the first check that fails.

For keys aimed at an element, the check is that the element holds its document's focus. Only a frame in
another process (another site's document) can take keys away from the element's site, so that check and the
commands that give it the element run only while the tab has such a frame (`oopifs_only`): typing on a page
without one costs no more. Such a frame appearing after the list began finds the check without its element,
and the list stops there too.
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
FOCUS_MOVED = "the page moved the keyboard focus away from the element"
FRAME_APPEARED = "a frame of another site appeared in the page, where the keys could have gone"
_KEY_STARTS = frozenset({"keyDown", "rawKeyDown"})


@dataclass(frozen=True, slots=True)
class FocusGuard:
    """`setup` readies the check (placed once, before the first key); `check` goes before each key and
    throws when the focus is not where the keys are aimed (`moved` says so; `unsure`: the check could not
    run)."""

    setup: tuple[Command, ...]
    check: Command
    moved: str
    unsure: str

    def guarding(self, keys: list[Command]) -> list[Command]:
        """`keys` with the check before each key that goes down (or text that goes in)."""
        guarded: list[Command] = []
        for command in keys:
            if command.method == "Input.insertText" or command.params.get("type") in _KEY_STARTS:
                guarded.append(self.check)
            guarded.append(command)
        return guarded

    def stopped(self, commands: Sequence[Command], results: Sequence[Outcome]) -> str | None:
        """Why the list stopped, when one of the checks stopped it (None: it did not stop at one)."""
        if not results or len(results) == len(commands) or commands[len(results) - 1] is not self.check:
            return None
        last = results[-1]
        return self.moved if isinstance(last, dict) and "exceptionDetails" in last else self.unsure


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


def focus_guard(element: Element | None, *, at: int, found_at: int = 0) -> FocusGuard:
    """The guard of keys aimed at `element` (None: the object command `found_at` of the list answered, a
    selector's match in the top document), its set-up starting at index `at` of the list."""
    session = None if element is None else element.session
    if element is not None and element.is_ref:
        world = {"worldName": WORLD, "frameId": element.frame_id}
        setup: tuple[Command, ...] = (
            Command("Page.createIsolatedWorld", world, session, oopifs_only=True),
            Command(
                "DOM.resolveNode",
                element.params,
                session,
                fill=(("executionContextId", at, "executionContextId"),),
                oopifs_only=True,
            ),
        )
    else:  # an object in the top document's page world: the same node, looked up in Tabgate's world
        params = {} if element is None else element.params
        of = found_at if element is None else None
        setup = (
            Command("DOM.describeNode", params, object_of=of, oopifs_only=True),
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
    check = Command(
        "Runtime.callFunctionOn",
        {"functionDeclaration": _HOLDS_FOCUS, "returnByValue": True},
        session,
        object_of=at + len(setup) - 1,
        ends_if_thrown=True,
        oopifs_only=True,
    )
    return FocusGuard(setup, check, FOCUS_MOVED, FRAME_APPEARED)
