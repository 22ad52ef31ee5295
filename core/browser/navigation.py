"""`browser_navigation`: navigate, reload, back, forward, current URL, wait for load (codex-chrome's)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.fields import TabId, WaitMs, used_by
from core.browser.spec import BrowserToolSpec
from core.browser.urls import check_navigable

_MOVES = ("navigate", "reload", "back", "forward")


class BrowserNavigationArgs(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra=used_by(
            {"url": ("navigate",), "waitForLoad": _MOVES, "timeoutMs": (*_MOVES, "wait_for_load")}
        ),
    )

    action: Literal["navigate", "reload", "back", "forward", "current_url", "wait_for_load"] = Field(
        description="navigate to url, reload, go back or forward, read the current URL, or wait for the load."
    )
    tabId: TabId = None
    url: str | None = Field(default=None, description="navigate: the http(s) URL to open.")
    waitForLoad: bool = Field(default=True, description="navigate/reload/back/forward: wait until loaded.")
    timeoutMs: WaitMs = 15_000

    @model_validator(mode="after")
    def _fields_fit_action(self) -> Self:
        if self.action == "navigate":
            if self.url is None:
                raise ValueError("url is required when action is 'navigate'")
            check_navigable(self.url)
        elif self.url is not None:
            raise ValueError(f"url is only used when action is 'navigate', not '{self.action}'")
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
