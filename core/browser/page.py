"""`browser_page`: a tab's title, URL, text, HTML, links (one chrome.* call), or its accessibility snapshot
and the lines found in it (every frame's tree fetched through the debugger and turned into the outline)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from core.browser.cdp import Command, TabState
from core.browser.context import PageContext
from core.browser.fence import ROOM, PageText
from core.browser.fields import Ref, TabId, used_by
from core.browser.refs import stale_ref
from core.browser.snapshot import FrameTree, Line, Outline, build_outline
from core.browser.spec import BrowserToolSpec
from core.errors import RespondToModel

DEFAULT_MAX_CHARS = 20_000


_FIELD_ACTIONS = {
    "maxChars": ("text", "html", "snapshot", "find"), "ref": ("snapshot",), "offset": ("snapshot",),
    "text": ("find",), "regex": ("find",),
}  # fmt: skip


class BrowserPageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=used_by(_FIELD_ACTIONS))

    action: Literal["title", "url", "text", "html", "links", "snapshot", "find"] = Field(
        description="title, url, text (visible text), html, links, snapshot (outline with refs), find."
    )
    tabId: TabId = None
    maxChars: StrictInt = Field(
        default=DEFAULT_MAX_CHARS,
        ge=1,
        le=1_000_000,
        description="text/html/snapshot/find: cut after this many characters.",
    )
    ref: Ref = None
    offset: StrictInt = Field(
        default=0, ge=0, description="snapshot: start at this line (the cut line says where)."
    )
    text: str | None = Field(default=None, min_length=1, description="find: text to look for (any case).")
    regex: str | None = Field(default=None, min_length=1, description="find: a regular expression instead.")

    @model_validator(mode="after")
    def _fields_fit_action(self) -> Self:
        if self.action == "find":
            if (self.text is None) == (self.regex is None):
                raise ValueError("find needs exactly one of text or regex")
            if self.regex is not None:
                try:
                    re.compile(self.regex)
                except re.error as error:
                    raise ValueError(f"regex does not compile: {error}") from None
        elif self.text is not None or self.regex is not None:
            raise ValueError(f"text and regex are only used when action is 'find', not '{self.action}'")
        if self.action != "snapshot" and (self.ref is not None or self.offset):
            raise ValueError(f"ref and offset are only used when action is 'snapshot', not '{self.action}'")
        return self

    def pattern(self) -> re.Pattern[str]:
        return (
            re.compile(self.regex) if self.regex is not None else re.compile(re.escape(self.text or ""), re.I)
        )


BROWSER_PAGE = BrowserToolSpec(
    name="browser_page",
    description=(
        "Read the page in a tab (tabId, or the active tab). action=snapshot gives an outline of the page "
        "(role, name, state, [ref=eN] to act on with browser_dom), across frames and shadow roots; {ref} "
        "reads one part, {offset} reads on after a cut. find {text|regex} gives the matching lines with "
        "their refs. Also title, "
        "url, text (visible text), html, links. Needs the user's permission for the page's site."
    ),
    params=BrowserPageArgs,
    # Reading changes nothing, so reads of several pages may overlap.
    supports_parallel=True,
    # Chrome builds the accessibility tree of a very large page slowly (seconds for 5,000 elements here).
    timeout_ms=60_000,
)


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


async def snapshot(ctx: PageContext, a: BrowserPageArgs) -> PageText:
    earlier = await _read_on(ctx, a.tabId) if a.offset and a.ref is None else None
    state, result = earlier or await outline(ctx, a.tabId, a.ref)
    if a.offset > len(result.lines):
        raise RespondToModel(f"offset {a.offset} is past the end of the outline ({len(result.lines)} lines)")
    body, cut = result.parts(offset=a.offset, max_chars=max(a.maxChars - ROOM, 0))
    if not body and not cut:
        return PageText(_header(state), after="(nothing on the page to show)")
    return PageText(f"{_header(state)}\n{body}" if body else _header(state), after=cut)


async def find(ctx: PageContext, a: BrowserPageArgs) -> PageText:
    pattern = a.pattern()
    state, result = await outline(ctx, a.tabId, None)
    matches = result.find(pattern)
    if not matches:
        return PageText(_header(state), before=f"No line of the page's outline matches {pattern.pattern!r}.")
    body, cut = Outline([Line(0, text) for text in matches]).parts(max_chars=max(a.maxChars - ROOM, 0))
    return PageText(f"{_header(state)}\n{body}", before=f"{len(matches)} matching line(s):", after=cut)
