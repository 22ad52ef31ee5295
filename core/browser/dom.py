"""`browser_dom`: click, type, select, scroll, or wait for a CSS selector in a tab's page."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.browser.fields import TabId, WaitMs
from core.browser.spec import BrowserToolSpec


class BrowserDomArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["click", "type", "select", "scroll", "wait_for"] = Field(
        description="click an element, type text into it, select an option, scroll, or wait for a selector."
    )
    tabId: TabId = None
    selector: str | None = Field(default=None, min_length=1, description="CSS selector of the element.")
    value: str | None = Field(
        default=None, description="type: the text to type. select: the option's value or text."
    )
    clear: bool = Field(default=False, description="type: replace the current value instead of appending.")
    x: int | None = Field(default=None, description="scroll without selector: the horizontal position.")
    y: int | None = Field(default=None, description="scroll without selector: the vertical position.")
    timeoutMs: WaitMs = 5_000

    @model_validator(mode="after")
    def _fields_fit_action(self) -> Self:
        if self.action != "scroll" and self.selector is None:
            raise ValueError(f"selector is required when action is '{self.action}'")
        if self.action in ("type", "select") and self.value is None:
            raise ValueError(f"value is required when action is '{self.action}'")
        if self.action == "scroll" and self.selector is None and self.x is None and self.y is None:
            raise ValueError("scroll needs a selector or x/y")
        return self


BROWSER_DOM = BrowserToolSpec(
    name="browser_dom",
    description=(
        "Act on the page in a tab (tabId, or the active tab) by CSS selector: action=click, type (value, "
        "clear), select (value), scroll (selector, or x/y), wait_for (until selector matches, timeoutMs). "
        "Needs the user's permission for the page's site."
    ),
    params=BrowserDomArgs,
    supports_parallel=False,
)
