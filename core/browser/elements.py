"""Finding the element an action targets (a ref from a snapshot, or a CSS selector) and reaching into it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.browser.context import PageContext
from core.browser.executor import Answer, Command, CommandFailed, TabState
from core.browser.refs import stale_ref
from core.calls.errors import RespondToModel
from core.web.fence import PageText

# Chrome's words for a node that is gone from the page.
_GONE = (
    "No node with given id",
    "Node is detached",
    "Could not find node",
    "No node found",
    "Session with given id",
)


_FRAME_OWNERS = frozenset({"HTMLIFrameElement", "HTMLFrameElement", "HTMLObjectElement", "HTMLEmbedElement"})


@dataclass(frozen=True, slots=True)
class Element:
    session: str | None
    params: dict[str, Any]  # how the debugger names it: {"backendNodeId": n} or {"objectId": id}
    label: str  # how the model named it: the ref, or the selector
    # A ref taken on trust (no round trip to ask the tab first): the first answer about it is checked.
    unverified: bool = False
    # An element by selector that shows another document (<iframe>, <frame>, <object>, <embed>): input aimed
    # at it lands in that document, whose site nobody was asked about.
    shows_frame: bool = False
    # The frame whose document holds it, for a ref (None: found by selector, in the top document).
    frame_id: str | None = None

    @property
    def is_ref(self) -> bool:
        return "backendNodeId" in self.params


def gone_or(element: Element, message: str, what: str) -> RespondToModel:
    if element.is_ref and any(word in message for word in _GONE):
        return stale_ref(element.label, "that element is no longer in the page")
    return RespondToModel(f"{what} {element.label}: {message}")


def verify(answer: Answer, state: TabState, element: Element) -> None:
    """For a ref taken on trust: its list ran only while the tab showed the document the ref came from (the
    executor's `epoch` check), so a list that ran nothing is a stale ref, and so is one whose first command
    found the ref's frame gone. A document or frame left once the list began is what the action did."""
    if not element.unverified or (answer.results and not isinstance(answer.results[0], CommandFailed)):
        return
    if answer.state.epoch != state.epoch:
        raise stale_ref(element.label, "the page has navigated since that snapshot")
    if element.session is not None and element.session not in {s.id for s in answer.state.sessions}:
        raise stale_ref(element.label, "its frame has reloaded or gone")


async def locate(
    ctx: PageContext, tab_id: int | None, *, ref: str | None, selector: str | None
) -> tuple[TabState, Element]:
    if ref is not None and tab_id is not None:  # one round trip fewer: checked with the first answer
        node, epoch = ctx.refs.peek(tab_id, ref)
        trusted = TabState(tab_id, url="", title="", epoch=epoch, dialog=None, sessions=())
        return trusted, Element(
            node.session, {"backendNodeId": node.backend_id}, ref, unverified=True, frame_id=node.frame_id
        )
    state = await ctx.cdp.state(tab_id)
    if ref is not None:
        node = ctx.refs.node(state.tab_id, ref, state.epoch)
        if node.session is not None and node.session not in {s.id for s in state.sessions}:
            raise stale_ref(ref, "its frame has reloaded or gone")
        return state, Element(node.session, {"backendNodeId": node.backend_id}, ref, frame_id=node.frame_id)
    if selector is None:
        raise RespondToModel("give the element: ref (from a snapshot) or selector")
    answer = await ctx.cdp.run(state.tab_id, [query(selector)])
    remote = matched(answer, selector)
    shows_frame = remote.get("className") in _FRAME_OWNERS
    return answer.state, Element(None, {"objectId": remote["objectId"]}, selector, shows_frame=shows_frame)


def query(selector: str) -> Command:
    """The command that finds the first element `selector` matches (a list it starts ends if it throws)."""
    expression = f"document.querySelector({json.dumps(selector)})"
    return Command("Runtime.evaluate", {"expression": expression}, ends_if_thrown=True)


def matched(answer: Answer, selector: str) -> dict[str, Any]:
    """The element `query` (the answer's first command) found, as a remote object; none is the error."""
    result = answer.result(0, f"selector {selector}")
    if "exceptionDetails" in result:
        detail = result["exceptionDetails"].get("exception", {}).get("description", "").split("\n")[0]
        raise RespondToModel(f"invalid selector {selector}: {detail}")
    remote = result.get("result", {})
    if remote.get("subtype") == "null" or "objectId" not in remote:
        raise RespondToModel(f"no element matches {selector}")
    return dict(remote)


async def object_id(ctx: PageContext, state: TabState, element: Element) -> str:
    if "objectId" in element.params:
        return str(element.params["objectId"])
    answer = await ctx.cdp.run(state.tab_id, [Command("DOM.resolveNode", element.params, element.session)])
    verify(answer, state, element)
    try:
        return str(answer.result(0, "resolve")["object"]["objectId"])
    except RespondToModel as error:
        raise gone_or(element, error.message, "cannot reach") from None


async def call_on(ctx: PageContext, state: TabState, element: Element, function: str, *args: Any) -> Any:
    """Runs `function` (JavaScript source) with `this` = the element; returns its JSON result."""
    oid = await object_id(ctx, state, element)
    params = {
        "functionDeclaration": function,
        "objectId": oid,
        "arguments": [{"value": a} for a in args],
        "returnByValue": True,
        "awaitPromise": True,
    }
    answer = await ctx.cdp.run(state.tab_id, [Command("Runtime.callFunctionOn", params, element.session)])
    result = answer.result(0, element.label)
    if "exceptionDetails" in result:  # thrown in the page: its words may be the page's own
        detail = result["exceptionDetails"].get("exception", {}).get("description", "error")
        thrown = PageText(detail.splitlines()[0], before=f"{element.label}: the page threw:")
        raise RespondToModel(thrown.render())
    return result.get("result", {}).get("value")


async def at_center(
    ctx: PageContext, state: TabState, element: Element, inputs: Sequence[Command] = ()
) -> tuple[Answer, list[float]]:
    """One list, one round trip: scroll the element into view, read its boxes, then `inputs` at the middle
    of its first box (the executor places them from the boxes it just read; with no box none go). Answers
    the inputs' answer (their results only) and that box; a gone element or one with no box is the error.
    A ref taken on trust runs only if the tab still shows its document (`epoch`)."""
    commands = [
        Command("DOM.scrollIntoViewIfNeeded", element.params, element.session),
        Command("DOM.getContentQuads", element.params, element.session),
        *(replace(command, center_of=1) if "x" in command.params else command for command in inputs),
    ]
    epoch = state.epoch if element.unverified else None
    answer = await ctx.cdp.run(state.tab_id, commands, keep_going=True, epoch=epoch)
    verify(answer, state, element)
    try:
        quads = answer.result(1, "locate")["quads"]
    except RespondToModel as error:
        raise gone_or(element, error.message.removeprefix("locate: "), "cannot reach") from None
    if not quads:
        raise RespondToModel(f"{element.label} is not visible (it has no box on the page)")
    return replace(answer, results=answer.results[2:]), list(quads[0])


async def center(ctx: PageContext, state: TabState, element: Element) -> tuple[float, float]:
    """Scrolls the element into view and answers the middle of its first box, in its frame's viewport (the
    point `at_center` aims its inputs at)."""
    _, quad = await at_center(ctx, state, element)
    return sum(quad[0::2]) / 4, sum(quad[1::2]) / 4
