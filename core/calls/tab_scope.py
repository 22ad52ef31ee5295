"""Which tabs a call may use and what its tab must show, from the caller (contract §8.1, `target`).

Absent (the person's own calls from the popup) every tab may be used. The page-access policy (which pages a
browser tool may touch at all) is decided here too, from what the service worker reports of the tab; the
executor then only checks, right before it acts, that the tab still shows the site decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictInt

from core.calls.capabilities import BrowserToolError, McpErrorCode
from core.calls.chrome_tab import ChromeTab
from core.calls.errors import RespondToModel
from core.web.fence import PageText
from core.web.web_url import reported_origin, reported_url

PAGE_CHANGED = "the page changed since you approved; ask again"
# For the person's own calls: the tab was checked for access, then showed something else before the action.
TAB_MOVED = "the tab moved to another page while Tabgate was about to act on it; try again"

# What an action needs the tab to show: a web page the user granted ("page"); any web or blank page, or one
# left through about:blank ("navigate"); anything ("tab", tab management); no tab at all ("none").
type Access = Literal["page", "navigate", "tab", "none"]


class FrameTarget(BaseModel):
    """The child frame an approved action lands in (contract §8.2): the executor re-checks, right before each
    command list, that frame `frameId` (reached through `session`) still shows `site`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session: str | None = None
    frameId: str = Field(min_length=1)
    site: str = Field(min_length=1)


class CallTarget(BaseModel):
    """`target` of a `dispatch` message: `tabs` the caller may see and act on, `tabId` the tab the call
    runs on when its arguments name none, `site` (scheme://host[:port]) that tab must still show, `frame`
    the child frame the approval was for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tabs: list[StrictInt] = Field(default_factory=list)
    tabId: StrictInt | None = None
    site: str | None = None
    frame: FrameTarget | None = None
    # The agent calling (its id): what it was shown before, e.g. for `snapshot {since: "last"}`, is its own.
    caller: str | None = None
    # The tab as the gateway looked it up for consent moments before, when no one was asked: the handler
    # does not look again (the executor still re-checks the site right before it acts). Never from the wire.
    _looked_up: TabFacts | None = PrivateAttr(default=None)

    def with_tab(self, tab: TabFacts) -> CallTarget:
        target = self.model_copy()
        target._looked_up = tab
        return target

    def looked_up(self, tab_id: int | None) -> TabFacts | None:
        """The tab's facts the gateway passed with the call, if they are of that tab."""
        tab = self._looked_up
        return tab if tab is not None and tab.id == tab_id else None


def not_shared(tab_id: int) -> RespondToModel:
    return RespondToModel(
        f"Tab {tab_id} is not shared with this agent. To use it, ask the person to open the Tabgate popup on "
        "that tab and choose *Share this tab with …*."
    )


def is_web_page(url: str) -> bool:
    """An http(s) page whose site Python and Chrome read alike (`web_url`); a URL read two ways is not one."""
    return reported_url(url) is not None


def shown_site(url: str) -> str:
    """What the executor compares (`Guard.to_wire`'s `siteOf`): a web page's origin as URL.origin spells it
    (no credentials, no default port), else the URL."""
    read = reported_url(url)
    return url if read is None else read.origin


def site_of(url: str) -> str | None:
    """A web page's site, spelled as the executors compare it (consent asks about it and binds it); None for
    any other page and for a URL that could be read as two sites."""
    return reported_origin(url)


@dataclass(frozen=True, slots=True)
class TabFacts:
    """What the service worker reports of a tab (the `tab` executor): Python decides from it."""

    id: int
    url: str
    granted: bool  # the user granted Tabgate the page's site

    @staticmethod
    def from_wire(raw: Any) -> TabFacts:
        tab = ChromeTab.model_validate(raw)
        return TabFacts(tab.id, tab.shown_url, raw.get("granted") is True)


@dataclass(frozen=True, slots=True)
class Guard:
    """The site the tab must show when the action reaches it, and what the call answers otherwise."""

    site: str
    changed: str
    frame: FrameTarget | None = None

    def to_wire(self) -> dict[str, Any]:
        # How the executor reads the tab to compare: a web page's site is its URL's origin; any other page
        # (about:blank, chrome://…) is compared by its whole URL, as `shown_site` spells it.
        site_of = "origin" if is_web_page(self.site) else "url"
        wire: dict[str, Any] = {"site": self.site, "siteOf": site_of, "siteChanged": self.changed}
        if self.frame is not None:
            wire["frame"] = self.frame.model_dump()
        return wire


def refusal(error: BrowserToolError, guard: Guard | None, prefix: str = "") -> RespondToModel:
    """A failed executor call as the model reads it: a tab found showing another site (by its code) is
    answered with the guard's words; anything else with the executor's message."""
    if error.code == McpErrorCode.PAGE_CHANGED and guard is not None:
        return RespondToModel(f"{guard.changed} ({error.message})")
    return RespondToModel(f"{prefix}{error.message}")


def require_page(tab: TabFacts) -> None:
    """A page a tool may read or act on: a web page whose site the user granted."""
    if not tab.url:
        raise RespondToModel(f"tab {tab.id} has no page Tabgate can read (url: none)")
    if not is_web_page(tab.url):
        # The address is the page's text (a page picks where it sends the tab): fenced.
        shown = PageText(tab.url, before=f"Tabgate cannot read tab {tab.id}: only http(s) pages. It shows:")
        raise RespondToModel(shown.render())
    origin = shown_site(tab.url)
    if not tab.granted:
        raise RespondToModel(
            f"Tabgate has no access to {origin}. Grant it: open the Tabgate popup on that page and choose "
            '"Allow access to this site", or add the site under chrome://extensions → Tabgate → Site access.'
        )


def guard_for(access: Access, tab: TabFacts, target: CallTarget | None) -> Guard | None:
    """Checks the tab against the policy and the caller's approval; answers what the executor re-checks."""
    shown = shown_site(tab.url)
    if target is not None and target.site is not None and shown != target.site:
        raise RespondToModel(f"{PAGE_CHANGED} (tab {tab.id} shows {shown}, not {target.site})")
    if access == "page":
        require_page(tab)
    if target is not None and target.site is not None:
        return Guard(target.site, PAGE_CHANGED, target.frame)
    if access in ("page", "navigate"):
        return Guard(shown, TAB_MOVED)
    return None
