"""A tab as chrome.tabs reports it, and the answers the tab tools make of it. The service worker sends
Chrome's fields as they are (extension/worker/browser_tools.js `tabFields`); which URL a tab shows and what
an answer holds are read here, once."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt


class ChromeTab(BaseModel):
    """chrome.tabs.Tab's fields the tools answer with (Chrome's names; any other field is ignored). A field
    Chrome left undefined may cross the bridge as None."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: StrictInt
    windowId: StrictInt | None = None
    index: StrictInt | None = None
    url: str | None = None
    pendingUrl: str | None = None
    title: str | None = None
    active: bool | None = None
    pinned: bool | None = None
    status: str | None = None

    @property
    def shown_url(self) -> str:
        """What the tab shows: a tab that has not committed its first page has url "" and its destination
        in pendingUrl (the worker's at-page check reads it alike: debugger.js `shownUrl`)."""
        return self.url or self.pendingUrl or ""

    def answer(self) -> dict[str, Any]:
        """The tab as a tool answers it: the URL it shows, and where it is going when that is elsewhere."""
        going = self.pendingUrl if self.pendingUrl and self.pendingUrl != self.url else None
        fields = {
            "id": self.id,
            "windowId": self.windowId,
            "index": self.index,
            "url": self.shown_url,
            "pendingUrl": going,
            "title": self.title or "",
            "active": self.active,
            "pinned": self.pinned,
            "status": self.status,
        }
        return {name: value for name, value in fields.items() if value is not None}


def tab_answer(raw: Any) -> dict[str, Any]:
    """One tab's answer (create, activate, update, and the navigations that wait for their tab)."""
    return ChromeTab.model_validate(raw).answer()


def tabs_answer(raw: Any) -> list[dict[str, Any]]:
    """query's answer: every tab Chrome listed."""
    if not isinstance(raw, list):
        raise ValueError(f"chrome.tabs.query answered {type(raw).__name__}, not a list")
    return [tab_answer(tab) for tab in raw]


def address_answer(raw: Any) -> dict[str, Any]:
    """current_url's answer: which tab, the URL it shows, and whether it is still loading."""
    tab = ChromeTab.model_validate(raw)
    answer = {"tabId": tab.id, "url": tab.shown_url, "status": tab.status}
    return {name: value for name, value in answer.items() if value is not None}
