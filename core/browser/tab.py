"""`browser_tab`: query, create, close, activate and update tabs (codex-chrome's TabTool)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from core.browser.context import PageContext
from core.browser.tool_spec import BrowserToolSpec
from core.web.urls import check_navigable


class BrowserTabArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["query", "create", "close", "activate", "update"] = Field(
        description="The operation: query tabs, create a tab, or close, activate or update the tab tabId."
    )
    tabId: StrictInt | None = Field(default=None, description="The tab to close, activate or update.")
    url: str | None = Field(
        default=None,
        description="create/update: the URL to open. query: a URL match pattern, e.g. https://*.example.com/*.",
    )
    title: str | None = Field(default=None, description="query: a title pattern (`*` matches anything).")
    active: bool | None = Field(default=None, description="create/update: focus the tab. query: filter.")
    pinned: bool | None = Field(default=None, description="create/update: pin the tab. query: filter.")
    windowId: StrictInt | None = Field(default=None, description="create: the window. query: filter.")
    currentWindow: bool | None = Field(default=None, description="query: only tabs of the current window.")

    @model_validator(mode="after")
    def _fields_fit_together(self) -> Self:
        """Beyond the fields each action takes (core/browser/actions.py)."""
        if self.action == "update" and self.url is None and self.active is None and self.pinned is None:
            raise ValueError("update needs at least one of url, active, pinned")
        if self.url is not None and self.action != "query":
            check_navigable(self.url)
        return self


BROWSER_TAB = BrowserToolSpec(
    name="browser_tab",
    description=(
        "Work with browser tabs. action=query lists tabs (filters: url, title, active, pinned, windowId, "
        "currentWindow); create opens a tab (url, active, pinned, windowId); close, activate and update act "
        "on tabId (update sets url, active or pinned)."
    ),
    params=BrowserTabArgs,
    supports_parallel=False,
)


# What an action sends chrome.tabs beside its own fields.
_OPTIONS = {"activate": {"active": True}}


def wire_of(a: BrowserTabArgs) -> dict[str, Any]:
    """The executor's request for one chrome.tabs call with exactly its options: the call's fields beside
    action and tabId, which are the action's own (each action takes only what it declares, actions.py)."""
    options = _OPTIONS.get(a.action) or a.model_dump(exclude_none=True, exclude={"action", "tabId"})
    wire: dict[str, Any] = {"action": a.action, "options": options}
    if a.tabId is not None:
        wire["tabId"] = a.tabId
    return wire


async def call(ctx: PageContext, a: BrowserTabArgs) -> Any:
    return await ctx.cdp.legacy("browser_tab", wire_of(a))
