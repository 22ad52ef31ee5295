"""`browser_page`: a tab's title, URL, text, HTML, links (one chrome.* call), or its snapshot — the outline
of what the page-side walk found in every frame (`page_walk`) — what changed in it since the caller's last
one, and the lines found in it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from core.browser.changes import changes
from core.browser.context import PageContext
from core.browser.executor import TabState
from core.browser.fields import Ref, TabId
from core.browser.page_walk import FIND_KEEPS_ALL, Walked, name_nodes, unchanged, walk_page
from core.browser.refs import RefTable, stale_ref
from core.browser.snapshot import Outline, build_outline
from core.browser.tool_spec import BrowserToolSpec
from core.calls.errors import RespondToModel
from core.web.fence import ROOM, PageText

DEFAULT_MAX_CHARS = 20_000


class BrowserPageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["title", "url", "text", "html", "links", "snapshot", "find"] = Field(
        description="title, url, text (visible text), html, links, snapshot (outline with refs), find."
    )
    tabId: TabId = None
    maxChars: StrictInt = Field(
        default=DEFAULT_MAX_CHARS,
        ge=1,
        le=1_000_000,
        description="text/html/links/snapshot/find: cut after this many characters.",
    )
    ref: Ref = None
    offset: StrictInt = Field(
        default=0, ge=0, description="snapshot: start at this line (the cut line says where)."
    )
    since: Literal["last"] | None = Field(
        default=None,
        description='snapshot: "last" answers only the lines added, changed or removed since your last '
        "snapshot of this page.",
    )
    text: str | None = Field(default=None, min_length=1, description="find: text to look for (any case).")
    regex: str | None = Field(default=None, min_length=1, description="find: a regular expression instead.")

    @model_validator(mode="after")
    def _fields_fit_together(self) -> Self:
        """Beyond the fields each action takes (core/browser/actions.py)."""
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as error:
                raise ValueError(f"regex does not compile: {error}") from None
        if self.since is not None and (self.ref is not None or self.offset):
            raise ValueError(
                "since compares whole-page snapshots from their start: give it without ref or offset"
            )
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
        'reads one part, {offset} reads on after a cut, {since: "last"} gives only what changed since your '
        "last snapshot of the page. find {text|regex} gives the matching lines with their refs (fast: from "
        "the last outline while the page is unchanged). Also title, "
        "url, text (visible text), html, links. Needs the user's permission for the page's site."
    ),
    params=BrowserPageArgs,
    # Reading changes nothing, so reads of several pages may overlap.
    supports_parallel=True,
    # A find walks the whole page: seconds on a page of 100,000 elements on a slow machine.
    timeout_ms=60_000,
)


async def _snapshot_outline(ctx: PageContext, a: BrowserPageArgs) -> tuple[TabState, RefTable, Outline]:
    """The outline a snapshot reads: the earlier one of this document when reading on after a cut that it
    covers, else a new walk that finds about what the answer can hold (and what comes before `offset`)."""
    if a.ref is not None:
        state = await ctx.cdp.state(a.tabId)
        table = ctx.refs.table(state.tab_id, state.epoch)
        key = table.key(a.ref, state.epoch)
        walked = await walk_page(ctx, state.tab_id, budget=_budget(a.maxChars), root=key)
        try:
            return walked.state, table, build_outline(walked.frames, under=key)
        except LookupError:
            raise stale_ref(a.ref, "that element is no longer in the page") from None
        finally:
            walked.tell(table)
    if a.offset:
        state = await ctx.cdp.state(a.tabId)
        table = ctx.refs.table(state.tab_id, state.epoch)
        cached = table.outline
        if isinstance(cached, Cache) and cached.outline.covers(a.offset, a.maxChars):
            return state, table, cached.outline
    budget = _budget(a.maxChars) + a.offset * _LINE_ESTIMATE
    while True:
        walked = await walk_page(ctx, a.tabId, budget=budget)
        table, outline = _keep(ctx, walked)
        # Lines cost the walk more than the estimate on some pages (a table row is many nodes): walk further
        # until the lines after `offset` fill the answer, so no answer comes short and reading on never
        # creeps a few lines a call.
        if outline.complete or outline.covers(a.offset, a.maxChars - ROOM):
            return walked.state, table, outline
        budget *= 2


# What a line costs in the walk's estimate, on average (to walk far enough to read on from an offset).
_LINE_ESTIMATE = 120


def _budget(max_chars: int) -> int:
    # The walk's estimate counts a little more than the lines come to: a margin so an answer is filled.
    return max_chars * 3 // 2 + 2_000


@dataclass(slots=True)
class Cache:
    """A tab's last outline, with the walk it came from (its frames' worlds and document versions)."""

    outline: Outline
    walked: Walked


def _keep(ctx: PageContext, walked: Walked) -> tuple[RefTable, Outline]:
    table = ctx.refs.table(walked.state.tab_id, walked.state.epoch)
    walked.tell(table)
    result = build_outline(walked.frames)
    if walked.partial:
        result.complete = False
    if not walked.narrowed:
        table.outline = Cache(result, walked)
    return table, result


def _header(state: TabState) -> str:
    return f"Page: {state.title or '(untitled)'} — {state.url}"


async def snapshot(ctx: PageContext, a: BrowserPageArgs) -> PageText:
    state, table, result = await _snapshot_outline(ctx, a)
    if a.offset > len(result.lines) and result.complete:
        raise RespondToModel(f"offset {a.offset} is past the end of the outline ({len(result.lines)} lines)")
    shown, cut = result.parts(table, offset=a.offset, max_chars=max(a.maxChars - ROOM, 0))
    await name_nodes(ctx, state.tab_id, table, table.contexts)
    earlier = table.seen.get(ctx.caller)
    if a.ref is None and not a.offset:
        table.seen[ctx.caller] = shown
    if a.since == "last" and earlier is not None:
        header, lines = changes(earlier, shown)
        body = "\n".join(lines)
        return PageText(f"{_header(state)}\n{body}" if body else _header(state), before=header, after=cut)
    before = "You had no earlier snapshot of this page: the whole outline." if a.since == "last" else ""
    if not shown and not cut:
        return PageText(_header(state), before=before, after="(nothing on the page to show)")
    body = "\n".join(shown)
    return PageText(f"{_header(state)}\n{body}" if body else _header(state), before=before, after=cut)


async def _find_outline(ctx: PageContext, a: BrowserPageArgs) -> tuple[TabState, RefTable, Outline]:
    """The tab's last outline when it is whole and the page has not changed since; else a new walk, which on
    a big page answers only the candidates for this search."""
    if a.tabId is not None:
        table = ctx.refs.table_of(a.tabId)
        cached = None if table is None else table.outline
        if (
            table is not None
            and isinstance(cached, Cache)
            and cached.outline.complete
            and await unchanged(ctx, a.tabId, cached.walked)
        ):
            return cached.walked.state, table, cached.outline
    match = {"keepAll": FIND_KEEPS_ALL, **({"text": a.text} if a.text is not None else {"regex": a.regex})}
    walked = await walk_page(ctx, a.tabId, budget=10**12, match=match)
    return walked.state, *_keep(ctx, walked)


async def find(ctx: PageContext, a: BrowserPageArgs) -> PageText:
    pattern = a.pattern()
    state, table, result = await _find_outline(ctx, a)
    matches = result.find(pattern)
    if not matches:
        return PageText(_header(state), before=f"No line of the page's outline matches {pattern.pattern!r}.")
    shown, cut = Outline(matches).parts(table, max_chars=max(a.maxChars - ROOM, 0))
    await name_nodes(ctx, state.tab_id, table, table.contexts)
    body = "\n".join(shown)
    return PageText(f"{_header(state)}\n{body}", before=f"{len(matches)} matching line(s):", after=cut)
