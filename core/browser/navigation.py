"""`browser_navigation`: navigate, reload, back, forward, current URL, wait for load (codex-chrome's).

`navigate` runs through the debugger (the HTTP status, and honest failures); the others are chrome.* calls.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.context import PageContext
from core.browser.executor import Command, TabState
from core.browser.fields import TabId, WaitMs
from core.browser.tool_spec import BrowserToolSpec
from core.calls.chrome_tab import ChromeTab
from core.calls.deadline import DeadlineExceeded, within
from core.calls.errors import RespondToModel
from core.calls.tab_scope import is_web_page
from core.web.fence import PageText
from core.web.urls import check_navigable

# The navigation timing the chrome.* executor applies as given: how long a navigation may take to begin
# after it was asked for (only an in-page history step with no entry to go to gets near it), how long a
# history step's answer waits for the debugger's word of its commit, and how often a wait on a tab polls it
# (Chrome registers an event listener asynchronously, so a change right after it can slip past unseen).
TIMING = (("startMs", 2_000), ("commitSeenMs", 2_000), ("pollMs", 100))


def _to_blank(tab_id: int | None, timeout_ms: int) -> dict[str, Any]:
    """The chrome.* call that sends a tab to about:blank and waits for it."""
    blank = {"action": "navigate", "url": "about:blank", "waitForLoad": True, "timeoutMs": timeout_ms}
    return blank | dict(TIMING) | ({} if tab_id is None else {"tabId": tab_id})


class BrowserNavigationArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["navigate", "reload", "back", "forward", "current_url", "wait_for_load"] = Field(
        description="navigate to url, reload, go back or forward, read the current URL, or wait for the load."
    )
    tabId: TabId = None
    url: str | None = Field(default=None, description="navigate: the http(s) URL to open.")
    waitForLoad: bool = Field(default=True, description="navigate/reload/back/forward: wait until loaded.")
    timeoutMs: WaitMs = 15_000

    @model_validator(mode="after")
    def _navigable(self) -> Self:
        if self.url is not None:
            check_navigable(self.url)
        return self


BROWSER_NAVIGATION = BrowserToolSpec(
    name="browser_navigation",
    description=(
        "Navigate a tab. action=navigate opens url (http/https) in tabId or the active tab; reload, back and "
        "forward move it; current_url reads its URL; wait_for_load waits until it has loaded. By default "
        "navigate/reload/back/forward wait for the page to load (timeoutMs)."
    ),
    params=BrowserNavigationArgs,
    supports_parallel=False,
)


_LOADED = """new Promise((resolve) => {
  const done = () => resolve({url: location.href, title: document.title});
  if (document.readyState === "complete") done(); else addEventListener("load", done, {once: true});
})"""
_RETRY_S = 0.05
_ERROR_PAGE_POLLS = 20
_STOPPED = "net::ERR_ABORTED"


async def _start(ctx: PageContext, a: BrowserNavigationArgs) -> TabState:
    """The tab, ready for the debugger (from Chrome's or an extension's page, via about:blank)."""
    tab_id = ctx.tab.id if ctx.tab is not None else a.tabId
    if ctx.tab is None or _controllable(ctx.tab.url):
        return (await ctx.cdp.run(tab_id, [])).state
    tab = ChromeTab.model_validate(await ctx.cdp.legacy("browser_navigation", _to_blank(tab_id, a.timeoutMs)))
    ctx.cdp.release()
    return (await ctx.cdp.run(tab.id, [])).state


async def _current(ctx: PageContext, tab_id: int | None) -> ChromeTab:
    """The tab as Chrome has it now (the tab the call names, or the active one)."""
    where = {"action": "current_url"} if tab_id is None else {"action": "current_url", "tabId": tab_id}
    return ChromeTab.model_validate(await ctx.cdp.legacy("browser_navigation", where))


async def _wait_loaded(ctx: PageContext, tab_id: int, deadline: float, timeout_ms: int) -> None:
    evaluate = Command(
        "Runtime.evaluate", {"expression": _LOADED, "awaitPromise": True, "returnByValue": True}
    )
    while True:
        answer = await ctx.cdp.run(tab_id, [evaluate])
        outcome = answer.results[0] if answer.results else None
        if isinstance(outcome, dict) and "exceptionDetails" not in outcome:
            return
        if time.monotonic() >= deadline:
            raise RespondToModel(f"tab {tab_id} did not finish loading within {timeout_ms} ms")
        await asyncio.sleep(
            _RETRY_S
        )  # the document was replaced while we waited (a redirect): wait for the next


def _document(entries: list[dict[str, Any]], loader_id: str | None) -> dict[str, Any] | None:
    documents = [e for e in entries if e.get("type") == "Document" and e.get("loaderId") == loader_id]
    return documents[-1] if documents else None


async def _failed(ctx: PageContext, state: TabState, url: str, error_text: str) -> RespondToModel:
    """A navigation that failed. Chrome then shows its error page under the URL that failed; when that is a
    page Tabgate may not control (a redirect onto an extension's page), the answer says where the
    navigation led and the tab is sent to about:blank."""
    if error_text == _STOPPED:  # nothing commits (a held load, or another one began): no error page comes
        return RespondToModel(f"navigation to {url} failed: {error_text}")
    shown = state.url
    for _ in range(_ERROR_PAGE_POLLS):  # the error page commits shortly after the failure is known
        shown = (await _current(ctx, state.tab_id)).shown_url
        if shown != state.url:
            break
        await asyncio.sleep(_RETRY_S)
    if _controllable(shown):
        return RespondToModel(f"navigation to {url} failed: {error_text}")
    await ctx.cdp.legacy("browser_navigation", _to_blank(state.tab_id, 5_000))
    return _led_away(
        f"navigation to {url} was redirected to a page Tabgate may not control (only http(s) pages; "
        f"{error_text}); the tab was sent to about:blank. Where it led:",
        shown,
    )


async def _go(ctx: PageContext, a: BrowserNavigationArgs, deadline: float) -> tuple[int, dict[str, Any]]:
    url = a.url or ""
    state = await _start(ctx, a)
    answer = await ctx.cdp.run(state.tab_id, [Command("Page.navigate", {"url": url})])
    ctx.cdp.release()
    started = answer.result(0, f"navigate to {url}")
    if started.get("errorText"):
        raise await _failed(ctx, state, url, str(started["errorText"]))
    if a.waitForLoad:
        await _wait_loaded(ctx, state.tab_id, deadline, a.timeoutMs)
    return state.tab_id, started


def _led_away(words: str, where: str) -> RespondToModel:
    """Tabgate's words, then where a redirect led: a URL the page chose, so the page's text (fenced)."""
    return RespondToModel(PageText(where, before=words).render())


def _controllable(url: str) -> bool:
    return is_web_page(url) or url == "about:blank"


async def _left_uncontrollable(ctx: PageContext, tab_id: int | None, url: str) -> RespondToModel | None:
    """If the tab ended on a page Tabgate may not control (Chrome's, an extension's: a redirect can lead
    there), the tab is sent to about:blank and the error says so; None when the tab is on a web page."""
    current = await _current(ctx, tab_id)
    final = current.shown_url
    if _controllable(final):
        return None
    await ctx.cdp.legacy("browser_navigation", _to_blank(current.id, 5_000))
    return _led_away(
        f"navigation to {url} ended on a page Tabgate may not control (only http(s) pages); the tab was "
        "sent to about:blank. Where it ended:",
        final,
    )


async def navigate(ctx: PageContext, a: BrowserNavigationArgs) -> dict[str, Any]:
    url = a.url or ""
    deadline = time.monotonic() + a.timeoutMs / 1000
    try:
        tab_id, started = await within(_go(ctx, a, deadline), a.timeoutMs)
        final = (await ctx.cdp.run(tab_id, [])).state
    except DeadlineExceeded:
        where = f"tab {a.tabId}" if a.tabId is not None else "the tab"
        raise RespondToModel(f"{where} did not finish loading within {a.timeoutMs} ms") from None
    except RespondToModel as error:
        raise (await _left_uncontrollable(ctx, a.tabId, url)) or error from None
    if not _controllable(final.url):
        raise (await _left_uncontrollable(ctx, tab_id, url)) or RespondToModel(f"navigation to {url} failed")
    network = await ctx.cdp.buffer(tab_id, "network")
    document = _document(network.entries, started.get("loaderId"))
    if document is not None and document.get("errorText"):
        raise RespondToModel(f"navigation to {url} failed: {document['errorText']}")
    status = document.get("status") if document is not None else None
    if not a.waitForLoad:  # the tab may still show the old page: say where it is going
        return {"url": url, "status": status, "title": final.title, "loading": True}
    return {"url": final.url, "status": status, "title": final.title}
