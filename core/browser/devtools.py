"""`browser_devtools`: what the page logged and requested, on the page shown now (since its last navigation)
or since Tabgate first acted on the tab."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from core.browser.context import PageContext
from core.browser.debugger_setup import BUFFER_ENTRIES
from core.browser.executor import Buffer, Command
from core.browser.fields import TabId
from core.browser.tool_spec import BrowserToolSpec
from core.calls.errors import RespondToModel
from core.calls.tab_scope import site_of
from core.web.cors import page_could_read
from core.web.fence import PageText

BODY_LIMIT = 100 * 1024
TEXT_LIMIT = 20_000
# Console levels from the most to the least severe; `level` keeps that level and the ones above it.
_LEVELS = ("error", "warning", "info", "log", "debug")
_LEVEL_OF = {
    "warn": "warning",
    "assert": "error",
    "verbose": "debug",
    "trace": "debug",
    "dir": "log",
    "table": "log",
    "timeEnd": "log",
    "count": "log",
    "clear": "log",
}


class BrowserDevtoolsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["console", "network", "request"] = Field(
        description="console messages, network requests, or one request's headers and body."
    )
    tabId: TabId = None
    level: Literal["error", "warning", "info", "log", "debug"] | None = Field(
        default=None, description="console: this level and more severe ones only."
    )
    filter: str | None = Field(default=None, min_length=1, description="network: only URLs containing this.")
    limit: StrictInt = Field(
        default=100, ge=1, le=BUFFER_ENTRIES, description="console/network: the latest this many."
    )
    scope: Literal["page", "tab"] = Field(
        default="page",
        description="console/network: the page shown now (since its last navigation), or the whole tab since "
        "Tabgate first acted on it.",
    )
    id: str | None = Field(default=None, min_length=1, description="request: the id from the network list.")


def _cut(head: str, lines: list[str], limit: int = TEXT_LIMIT) -> PageText | str:
    """Tabgate's head line, then the page's lines (fenced) cut at `limit` with a line that says so."""
    if not lines:
        return head + "."
    out: list[str] = []
    used = len(head) + 1
    cut = ""
    for index, line in enumerate(lines):
        if used + len(line) + 1 > limit:
            cut = f"[cut at {limit} characters: {len(lines) - index} more line(s); lower limit or filter]"
            break
        out.append(line)
        used += len(line) + 1
    return PageText("\n".join(out), before=head + ":", after=cut)


def _since(fresh: bool, what: str) -> str:
    return (
        f"Tabgate started recording {what} of this tab just now (it had not acted on it before).\n"
        if fresh
        else ""
    )


def _on_this_page(entry: dict[str, Any], buffer: Buffer) -> bool:
    """Recorded since the tab's last navigation; a request also when it loaded the document shown now (it is
    sent, and redirected, before that document replaces the old one)."""
    if entry.get("epoch") == buffer.state.epoch:
        return True
    return buffer.loader_id is not None and entry.get("loaderId") == buffer.loader_id


NOT_A_WEB_PAGE = "a frame that is not a web page"


@dataclass(frozen=True, slots=True)
class _Recorded:
    """A buffer's entries split into those Tabgate shows and those it keeps back, with where each came from:
    a frame (or an earlier page of the tab) of a site Tabgate has no access to is read here as the page's
    outline reads it (core/browser/page_walk.py): not at all."""

    buffer: Buffer
    shown: list[dict[str, Any]]
    hidden: list[tuple[dict[str, Any], str]]


def _sources(entries: list[dict[str, Any]]) -> list[str | None]:
    """The site of the document each entry came from: a request's document, else the script context whose
    console it is, else the page its session showed (a frame of about:blank or data: shows its parent's).
    Each address is read once: a buffer holds up to a thousand entries of a few documents."""
    read: dict[str, str | None] = {}

    def site(address: str) -> str | None:
        if address not in read:
            read[address] = site_of(address)
        return read[address]

    return [
        next((s for key in ("doc", "origin", "page") if (s := site(str(e.get(key) or "")))), None)
        for e in entries
    ]


async def _recorded(ctx: PageContext, tab_id: int | None, name: str) -> _Recorded:
    buffer = await ctx.cdp.buffer(tab_id, name)
    top = site_of(buffer.state.url)
    sources = _sources(buffer.entries)
    granted = await ctx.cdp.granted(sorted({s for s in sources if s is not None and s != top}))
    shown: list[dict[str, Any]] = []
    hidden: list[tuple[dict[str, Any], str]] = []
    for entry, site in zip(buffer.entries, sources, strict=True):
        if site is None and entry.get("session") is None and entry.get("frame") is None:
            shown.append(entry)  # the tab's own process: a document its page wrote
        elif site is None:
            hidden.append((entry, NOT_A_WEB_PAGE))
        elif site == top or site in granted:
            shown.append(entry)
        else:
            hidden.append((entry, site))
    return _Recorded(buffer, shown, hidden)


def _kept_back(sources: list[str]) -> str:
    if not sources:
        return ""
    named = ", ".join(sorted(set(sources)))
    return (
        f"; {len(sources)} more not shown, from {named}: Tabgate has no access there (grant it to see them)"
    )


def _scoped(
    recorded: _Recorded, scope: str, wanted: Callable[[dict[str, Any]], bool], limit: int, what: str
) -> tuple[list[dict[str, Any]], str]:
    """The latest `limit` wanted entries in scope, and Tabgate's words for how many, how many older and how
    many kept back."""
    buffer = recorded.buffer
    matching = [e for e in recorded.shown if wanted(e)]
    hidden = [s for e, s in recorded.hidden if wanted(e) and (scope == "tab" or _on_this_page(e, buffer))]
    if scope == "tab":
        return matching[-limit:], f"{what} since Tabgate first acted on this tab{_kept_back(hidden)}"
    current = [e for e in matching if _on_this_page(e, buffer)]
    older = len(matching) - len(current)
    words = f"{what} on this page (since its last navigation)"
    if older:
        words += f'; {older} more from earlier pages of this tab (scope: "tab" lists them)'
    return current[-limit:], words + _kept_back(hidden)


def _level(entry: dict[str, Any]) -> str:
    return _LEVEL_OF.get(str(entry.get("level")), str(entry.get("level")))


async def console(ctx: PageContext, a: BrowserDevtoolsArgs) -> PageText | str:
    recorded = await _recorded(ctx, a.tabId, "console")
    buffer = recorded.buffer
    keep = _LEVELS[: _LEVELS.index(a.level) + 1] if a.level else _LEVELS
    picked, counted = _scoped(recorded, a.scope, lambda e: _level(e) in keep, a.limit, "console message(s)")
    lines = []
    for e in picked:
        where = (
            f" ({e['url']}:{int(e['line']) + 1})"
            if e.get("url") and e.get("line") is not None
            else (f" ({e['url']})" if e.get("url") else "")
        )
        lines.append(f"[{_level(e)}] {e.get('text', '')}{where}")
    head = f"{_since(buffer.fresh, 'console messages')}Tab {buffer.state.tab_id}: {len(picked)} {counted}"
    return _cut(head, lines)


def _status(e: dict[str, Any]) -> str:
    if e.get("errorText"):
        return f"failed {e['errorText']}" + (f" ({e['blockedReason']})" if e.get("blockedReason") else "")
    if e.get("status") is not None:
        return str(e["status"])
    return "pending"


async def network(ctx: PageContext, a: BrowserDevtoolsArgs) -> PageText | str:
    recorded = await _recorded(ctx, a.tabId, "network")
    buffer = recorded.buffer

    def wanted(e: dict[str, Any]) -> bool:
        return bool(e.get("url")) and (a.filter is None or a.filter in str(e["url"]))

    picked, counted = _scoped(recorded, a.scope, wanted, a.limit, "request(s) (id method status type url)")
    lines = [
        f"{e['id']} {e.get('method', 'GET')} {_status(e)} {e.get('type', '')} {e['url']}" for e in picked
    ]
    count = f"Tab {buffer.state.tab_id}: {len(picked)} {counted}"
    return _cut(_since(buffer.fresh, "network requests") + count, lines)


async def _kept_response(ctx: PageContext, entry: dict[str, Any]) -> str | None:
    """The site a response came from, when it may not be shown: the page that asked for it could not read it
    itself and Tabgate may not read that site (the debugger records bodies the same-origin policy keeps from
    the page); None when it may be shown."""
    response_url = str(entry.get("responseUrl") or entry.get("url") or "")
    if page_could_read(_sources([entry])[0], response_url, entry.get("responseHeaders")):
        return None
    came_from = site_of(response_url)
    return None if came_from is None or came_from in await ctx.cdp.granted([came_from]) else came_from


def _headers(headers: Any) -> list[str]:
    return [f"  {k}: {v}" for k, v in (headers or {}).items()]


async def request(ctx: PageContext, a: BrowserDevtoolsArgs) -> PageText:
    recorded = await _recorded(ctx, a.tabId, "network")
    state = recorded.buffer.state
    kept = next((source for e, source in recorded.hidden if e.get("id") == a.id), None)
    if kept is not None:
        raise RespondToModel(
            f"request {a.id} came from {kept}, which Tabgate has no access to (grant it to see inside)"
            if kept != NOT_A_WEB_PAGE
            else f"request {a.id} came from {NOT_A_WEB_PAGE}: Tabgate shows web pages only"
        )
    entry = next((e for e in recorded.shown if e.get("id") == a.id), None)
    if entry is None:
        raise RespondToModel(
            f"no request {a.id} in tab {state.tab_id}'s network list (browser_devtools network lists them)"
        )
    lines = [f"{entry.get('method', 'GET')} {entry.get('url')}", f"status: {_status(entry)}"]
    if entry.get("redirectedFrom"):
        lines.append(f"redirected from: {entry['redirectedFrom']}")
    lines += ["request headers:", *_headers(entry.get("requestHeaders"))]
    if entry.get("postData"):
        lines += ["request body:", str(entry["postData"])[:BODY_LIMIT]]
    if (came_from := await _kept_response(ctx, entry)) is not None:
        lines.append(
            f"response: not shown: it came from {came_from}, which the page itself may not read (no CORS "
            "header lets it) and Tabgate has no access to (grant it to see it)"
        )
        return PageText("\n".join(lines))
    lines += ["response headers:", *_headers(entry.get("responseHeaders"))]
    if entry.get("finished"):
        answer = await ctx.cdp.run(
            state.tab_id, [Command("Network.getResponseBody", {"requestId": a.id}, entry.get("session"))]
        )
        try:
            body = answer.result(0, "body")
        except RespondToModel as error:
            lines.append(f"response body: not available ({error.message.removeprefix('body: ')})")
        else:
            if body.get("base64Encoded"):
                lines.append(f"response body: binary ({len(body.get('body', '')) * 3 // 4} bytes), not shown")
            else:
                text = str(body.get("body", ""))
                cut = f"\n[cut at {BODY_LIMIT} characters of {len(text)}]" if len(text) > BODY_LIMIT else ""
                lines += ["response body:", text[:BODY_LIMIT]]
                return PageText("\n".join(lines), after=cut.strip())
    return PageText("\n".join(lines))


BROWSER_DEVTOOLS = BrowserToolSpec(
    name="browser_devtools",
    description=(
        "What the page in a tab did: action=console {level?, limit?, scope?} lists console messages and "
        "errors; network {filter?, limit?, scope?} lists requests with status or failure; request {id} "
        "gives one request's headers and body (cut at 100 KiB). console and network cover the page shown "
        "now (since its last navigation) and say how many entries earlier pages left; scope=tab lists "
        "everything since Tabgate first acted on the tab (last 1000 entries each)."
    ),
    params=BrowserDevtoolsArgs,
    supports_parallel=True,
)
