"""`browser_page` snapshot and find: fetch every frame's accessibility tree and turn it into the outline."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from core.browser.cdp import Command, TabState
from core.browser.context import PageContext
from core.browser.refs import stale_ref
from core.browser.snapshot import FrameTree, Line, Outline, build_outline
from core.errors import RespondToModel


@dataclass(frozen=True, slots=True)
class _Frame:
    id: str
    parent: str | None
    url: str
    session: str | None


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


def _walk(
    tree: dict[str, Any],
    parent: str | None,
    session: str | None,
    out: dict[str, _Frame],
    oopif: dict[str, str],
) -> None:
    frame = tree["frame"]
    own = oopif.get(frame["id"], session)
    if frame["id"] not in out:
        out[frame["id"]] = _Frame(frame["id"], parent, str(frame.get("url", "")), own)
    for child in tree.get("childFrames", ()):
        _walk(child, frame["id"], own, out, oopif)


async def _frames(ctx: PageContext, tab_id: int | None) -> tuple[TabState, list[_Frame]]:
    """Every frame of the tab, with the session that reaches it (an out-of-process frame has its own)."""
    answer = await ctx.cdp.run(tab_id, [Command("Page.getFrameTree")])
    state = answer.state
    oopif = {s.target_id: s.id for s in state.sessions}
    frames: dict[str, _Frame] = {}
    _walk(answer.result(0, "frame tree")["frameTree"], None, None, frames, oopif)
    if state.sessions:  # an out-of-process frame and its own frames are known to its session only
        trees = await ctx.cdp.run(
            state.tab_id, [Command("Page.getFrameTree", {}, s.id) for s in state.sessions], parallel=True
        )
        for session, outcome in zip(state.sessions, trees.results, strict=False):
            if isinstance(outcome, dict) and "frameTree" in outcome:
                _walk(outcome["frameTree"], None, session.id, frames, oopif)
    return state, list(frames.values())


def _withheld(frame: _Frame, granted: set[str], top_origin: str | None) -> str | None:
    if frame.url in ("", "about:blank", "about:srcdoc"):
        return None
    origin = _origin(frame.url)
    if origin is None:
        return f"{urlsplit(frame.url).scheme}: frame, not a web page"
    if origin != top_origin and origin not in granted:
        return f"a frame from {origin}, which Tabgate has no access to (grant it to see inside)"
    return None


def _owner_queries(frames: list[_Frame], top: _Frame) -> list[tuple[_Frame, str | None]]:
    """Where to ask for each frame's <iframe> element: its parent's session, or, for an out-of-process frame
    whose parent is not known, every other session (the one that has it answers)."""
    by_id = {f.id: f for f in frames}
    sessions = list(dict.fromkeys(f.session for f in frames))
    queries: list[tuple[_Frame, str | None]] = []
    for frame in frames:
        if frame is top:
            continue
        if frame.parent is not None:
            queries.append((frame, by_id[frame.parent].session))
        else:
            queries += [(frame, s) for s in sessions if s != frame.session]
    return queries


async def page_trees(ctx: PageContext, tab_id: int | None) -> tuple[TabState, list[FrameTree]]:
    state, frames = await _frames(ctx, tab_id)
    top = frames[0]
    top_origin = _origin(state.url)
    others = sorted({o for f in frames if (o := _origin(f.url)) is not None and o != top_origin})
    granted = await ctx.cdp.granted(others)
    shown = {f.id: _withheld(f, granted, top_origin) for f in frames}
    visible = [f for f in frames if shown[f.id] is None]
    owners = _owner_queries(frames, top)
    commands = [Command("Accessibility.getFullAXTree", {"frameId": f.id}, f.session) for f in visible]
    commands += [Command("DOM.getFrameOwner", {"frameId": f.id}, s) for f, s in owners]
    answer = await ctx.cdp.run(state.tab_id, commands, parallel=True)
    nodes = {
        f.id: r.get("nodes", []) for f, r in zip(visible, answer.results, strict=False) if isinstance(r, dict)
    }
    found: dict[str, tuple[int, str | None]] = {}
    for (frame, session), outcome in zip(owners, answer.results[len(visible) :], strict=False):
        if isinstance(outcome, dict) and "backendNodeId" in outcome:
            found.setdefault(frame.id, (int(outcome["backendNodeId"]), session))
    trees = [
        FrameTree(
            frame.id,
            None if frame is top else (frame.parent or top.id),
            frame.session,
            frame.url,
            found.get(frame.id, (None, None))[0],
            nodes.get(frame.id, []),
            owner_session=found.get(frame.id, (None, None))[1],
            withheld=shown[frame.id],
        )
        for frame in frames
    ]
    return answer.state, trees


async def outline(ctx: PageContext, tab_id: int | None, ref: str | None) -> tuple[TabState, Outline]:
    state, trees = await page_trees(ctx, tab_id)
    table = ctx.refs.table(state.tab_id, state.epoch)
    if ref is None:
        table.outline = build_outline(trees, table)
        return state, table.outline
    under = ctx.refs.node(state.tab_id, ref, state.epoch)
    try:
        return state, build_outline(trees, table, under=under)
    except LookupError:
        raise stale_ref(ref, "that element is no longer in the page") from None


async def _read_on(ctx: PageContext, tab_id: int | None) -> tuple[TabState, Outline] | None:
    """The outline an earlier snapshot of this document was cut from, to read on from its offset."""
    state = await ctx.cdp.state(tab_id)
    cached = ctx.refs.table(state.tab_id, state.epoch).outline
    return (state, cached) if isinstance(cached, Outline) else None


def _header(state: TabState) -> str:
    return f"Page: {state.title or '(untitled)'} — {state.url}"


async def snapshot(
    ctx: PageContext, tab_id: int | None, *, ref: str | None, offset: int, max_chars: int
) -> str:
    earlier = await _read_on(ctx, tab_id) if offset and ref is None else None
    state, result = earlier or await outline(ctx, tab_id, ref)
    if offset > len(result.lines):
        raise RespondToModel(f"offset {offset} is past the end of the outline ({len(result.lines)} lines)")
    body = result.render(offset=offset, max_chars=max_chars)
    return f"{_header(state)}\n{body}" if body else f"{_header(state)}\n(nothing on the page to show)"


async def find(ctx: PageContext, tab_id: int | None, *, pattern: re.Pattern[str], max_chars: int) -> str:
    state, result = await outline(ctx, tab_id, None)
    matches = result.find(pattern)
    if not matches:
        return f"{_header(state)}\nNo line of the page's outline matches {pattern.pattern!r}."
    found = Outline([Line(0, text) for text in matches])
    return f"{_header(state)}\n{len(matches)} matching line(s):\n{found.render(max_chars=max_chars)}"
