"""A capture of a tab that shows no frame of a site Tabgate has no access to: each such frame's box is read
just before and just after `Page.captureScreenshot`, in the capture's own command list, and painted over
(the worker's `cdp.mask`); a page that draws such a frame outside its box (a CSS filter that shifts or casts
it, a reflection) is not captured at all, since where its pixels land is not known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.browser.context import PageContext
from core.browser.executor import Command, Outcome
from core.browser.page_walk import KeptBack, frames_kept_back
from core.browser.walker import WORLD
from core.calls.errors import RespondToModel

# A page whose frames keep changing while it is captured is looked at again this many times.
CAPTURE_TRIES = 3
# Run on each such frame's <iframe> in Tabgate's isolated world: does it, or an element around it, draw it
# elsewhere too? (drop-shadow casts its shape, url() runs any SVG filter, blur spreads it, a reflection
# copies it.)
DRAWN_ELSEWHERE = """function () {
  for (let el = this; el; el = el.parentElement || el.getRootNode().host) {
    const style = getComputedStyle(el);
    if (/drop-shadow|url\\(|blur\\(/.test(style.filter)) return true;
    if ((style.webkitBoxReflect || "none") !== "none") return true;
  }
  return false;
}"""


@dataclass(frozen=True, slots=True)
class Shot:
    data: str
    masks: list[tuple[float, float, float, float]]  # x, y, width, height in CSS pixels of the clip


def _box(
    quads: Outcome, view: dict[str, Any], clip: dict[str, Any]
) -> tuple[float, float, float, float] | None:
    """A frame's box in the clip's coordinates, or None when it has no box or lies outside the clip."""
    if not isinstance(quads, dict) or not quads.get("quads"):
        return None
    xs = [x for q in quads["quads"] for x in q[0::2]]
    ys = [y for q in quads["quads"] for y in q[1::2]]
    left, top = min(xs) + view["pageX"] - clip["x"], min(ys) + view["pageY"] - clip["y"]
    right, bottom = max(xs) + view["pageX"] - clip["x"], max(ys) + view["pageY"] - clip["y"]
    left, top = max(left, 0), max(top, 0)
    right, bottom = min(right, clip["width"]), min(bottom, clip["height"])
    return (left, top, right - left, bottom - top) if right > left and bottom > top else None


def _holders(frames: KeptBack) -> list[str]:
    """The frames whose <iframe> could draw a kept frame elsewhere: each kept frame and, around them, every
    child frame of the tab's own process (a filter on one moves all it shows; which of them holds a frame of
    another process the trees do not say)."""
    if not frames.kept:
        return []
    return list(dict.fromkeys([*frames.kept, *frames.in_process[1:]]))


async def _owners(ctx: PageContext, tab_id: int, holders: list[str], frames: KeptBack) -> list[Any] | None:
    """Each frame's <iframe>, looked up in Tabgate's isolated world of the document it is in (the parent's;
    for a frame of another process, whose parent the trees do not say, the document of the tab's own process
    that has it): its node id and the object standing for it there; None when one went away meanwhile."""
    commands: list[Command] = []
    tries: list[tuple[int, list[int]]] = []  # per holder: where its owner is, where each lookup of it is
    for frame in holders:
        owner = len(commands)
        commands.append(Command("DOM.getFrameOwner", {"frameId": frame}))
        lookups = []
        parent = frames.parents.get(frame)
        for document in [parent] if parent is not None else frames.in_process:
            world = len(commands)
            lookups.append(world + 1)
            commands += [
                Command("Page.createIsolatedWorld", {"frameId": document, "worldName": WORLD}),
                Command(
                    "DOM.resolveNode",
                    {},
                    fill=(
                        ("backendNodeId", owner, "backendNodeId"),
                        ("executionContextId", world, "executionContextId"),
                    ),
                ),
            ]
        tries.append((owner, lookups))
    results = (await ctx.cdp.run(tab_id, commands, keep_going=True)).results if commands else ()
    found: list[Any] = []
    for owner, lookups in tries:
        node = next((r for at in lookups if isinstance(r := _at(results, at), dict) and "object" in r), None)
        got = _at(results, owner)
        if node is None or not isinstance(got, dict):
            return None
        found.append((int(got["backendNodeId"]), str(node["object"]["objectId"])))
    return found


def _at(results: tuple[Outcome, ...], index: int) -> Outcome | None:
    return results[index] if index < len(results) else None


async def masked_capture(ctx: PageContext, tab_id: int, params: dict[str, Any], *, full_page: bool) -> Shot:
    """The capture, and the boxes to paint over: a frame to keep back that was added, removed or moved
    during the list has the page looked at again."""
    for _ in range(CAPTURE_TRIES):
        frames = await frames_kept_back(ctx, tab_id)
        state, kept = frames.state, frames.kept
        if kept and full_page:
            raise RespondToModel(
                f"a fullPage capture would show {len(kept)} frame(s) of sites Tabgate has no access to: "
                "capture the visible part (they are painted over there) or one element (ref), or grant those "
                "sites"
            )
        holders = _holders(frames)
        owners = await _owners(ctx, tab_id, holders, frames)
        if owners is None:
            continue
        boxed = [node for frame, (node, _) in zip(holders, owners, strict=True) if frame in kept]
        reads = [Command("DOM.getContentQuads", {"backendNodeId": node}) for node in boxed] + [
            Command(
                "Runtime.callFunctionOn",
                {"objectId": obj, "functionDeclaration": DRAWN_ELSEWHERE, "returnByValue": True},
            )
            for _, obj in owners
        ]
        view, capture = Command("Page.getLayoutMetrics"), Command("Page.captureScreenshot", params)
        shot = await ctx.cdp.run(tab_id, [*reads, view, capture, *reads], keep_going=True)
        before, after = shot.results[: len(reads)], shot.results[len(reads) + 2 :]
        if before != after:
            continue
        # Frames attached, detached or navigated meanwhile (a widget that reloads all the time does that
        # during every capture): the capture stands if the frames to keep back are still the same ones.
        if shot.state.frames != state.frames and (await frames_kept_back(ctx, tab_id)).kept != kept:
            continue
        boxes, drawn = before[: len(boxed)], before[len(boxed) :]
        if any(not isinstance(r, dict) or r.get("result", {}).get("value") is not False for r in drawn):
            raise RespondToModel(
                "the page draws a frame of a site Tabgate has no access to outside its box too (a CSS "
                "filter or a reflection), so a capture would show it: not captured. Grant that site to "
                "capture the page"
            )
        metrics = shot.result(len(reads), "page size")["cssVisualViewport"]
        data = str(shot.result(len(reads) + 1, "screenshot")["data"])
        return Shot(data, [m for r in boxes if (m := _box(r, metrics, params["clip"])) is not None])
    raise RespondToModel(
        "the page kept changing its frames while Tabgate captured it, so it could not tell what they show: "
        "try again"
    )
